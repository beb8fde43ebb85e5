// Package k8srules applies Kubernetes' declarative validation rules of
// built-in kinds (the `+k8s:` tags of k8s.io/api's types.go, Kubernetes
// 1.33 and later) to objects as they would be created: rules.json is
// generated from k8s.io/api by gen/ (go generate) and embedded.
package k8srules

//go:generate go run ./gen -out rules.json
