// This file holds the built-in objects several packages' tests judge.

package testfixtures

// Issue32Deployment is issue 32's Deployment: kube-apiserver rejects four
// things in it (selector against template labels, protocol "udp", a request
// above its limit, a duplicate container name) that the OpenAPI schemas do
// not state.
const Issue32Deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: website}}
    spec:
      containers:
      - name: web
        image: nginx
        ports: [{containerPort: 80, protocol: udp}]
        resources: {requests: {cpu: "2"}, limits: {cpu: "1"}}
      - {name: web, image: nginx}
`
