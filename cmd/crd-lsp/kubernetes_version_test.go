package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kubernetesVersionFiles are objects whose verdict depends on the
// Kubernetes minor: fields of a Deployment added in 1.36
// (schedulingGroup) and 1.37 (a volume mount's bindMountOptions), a kind
// GA only from 1.37 (storagemigration.k8s.io/v1), and an API removed in
// 1.25.
var kubernetesVersionFiles = map[string]string{
	"deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      schedulingGroup:
        podGroupName: g
      containers:
      - name: web
        image: nginx
        volumeMounts:
        - name: data
          mountPath: /data
          bindMountOptions: [noexec]
      volumes:
      - name: data
        emptyDir: {}
`,
	"migration.yaml": `apiVersion: storagemigration.k8s.io/v1
kind: StorageVersionMigration
metadata:
  name: m
spec:
  resource:
    group: apps
    resource: deployments
`,
	"psp.yaml": `apiVersion: policy/v1beta1
kind: PodSecurityPolicy
metadata:
  name: p
spec: {}
`,
}

// TestCheckKubernetesVersion runs the real binary on files with
// --kubernetes-version: what a newer minor added is an error naming both
// releases, a later kind says from when it is served, the removed API
// keeps its message, the default is the newest (1.37), and a version
// that is no built-in minor is a usage error listing the built-in ones.
func TestCheckKubernetesVersion(t *testing.T) {
	dir := t.TempDir()
	for name, text := range kubernetesVersionFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := t.TempDir()
	psp := "psp.yaml:1:13: error: policy/v1beta1 PodSecurityPolicy was removed in Kubernetes 1.25: the API server no longer serves it"
	for _, c := range []struct {
		args      []string
		want, not []string
	}{
		{[]string{"--kubernetes-version", "1.34"}, []string{
			`deploy.yaml:12:7: error: unknown field "schedulingGroup": spec.template.spec.schedulingGroup is not in Kubernetes 1.34 (added in 1.36) [unknown-field]`,
			`deploy.yaml:20:11: error: unknown field "bindMountOptions": spec.template.spec.containers[0].volumeMounts[0].bindMountOptions is not in Kubernetes 1.34 (added in 1.37) [unknown-field]`,
			"migration.yaml:1:13: error: storagemigration.k8s.io/v1 StorageVersionMigration is not served by Kubernetes 1.34, the targeted version: it is served from Kubernetes 1.37",
			psp,
		}, nil},
		{[]string{"--kubernetes-version=v1.36"}, []string{
			`deploy.yaml:20:11: error: unknown field "bindMountOptions": spec.template.spec.containers[0].volumeMounts[0].bindMountOptions is not in Kubernetes 1.36 (added in 1.37) [unknown-field]`,
			"is not served by Kubernetes 1.36",
			psp,
		}, []string{"schedulingGroup"}},
		{nil, []string{psp, "3 files checked: 1 error"}, []string{"schedulingGroup", "bindMountOptions", "StorageVersionMigration"}},
	} {
		code, out, errOut := runBin(t, nil, "", append(append([]string{"check", "--cache-dir", cache}, c.args...), dir)...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1 (stderr %q)", c.args, code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in\n%s", c.args, w, out)
			}
		}
		for _, n := range c.not {
			if strings.Contains(out, n) {
				t.Errorf("%v: %q in\n%s", c.args, n, out)
			}
		}
	}

	for _, v := range []string{"1.20", "banana", "1.38"} {
		for _, cmd := range [][]string{{"check", "--kubernetes-version", v, dir}, {"render", "--kubernetes-version", v, filepath.Join(dir, "deploy.yaml")}, {"mcp", "--root", dir, "--kubernetes-version", v}} {
			code, out, errOut := runBin(t, nil, "", cmd...)
			want := `--kubernetes-version "` + v + `": want one of the built-in Kubernetes minors 1.34, 1.35, 1.36, 1.37`
			if code != 2 || out != "" || !strings.Contains(errOut, want) {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 saying %q", cmd, code, out, errOut, want)
			}
		}
	}
}
