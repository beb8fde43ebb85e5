// Package referee holds only tests: they start a real API server (Debian's
// etcd and the standalone apiextensions-apiserver at the version crd-lsp
// depends on) on loopback and compare crd-lsp's verdicts and field paths
// with the server's, on the shared corpus and on seeded mutations of it.
//
// The server binary is built outside the repository (see .ci/run):
//
//	cd "$(go env GOMODCACHE)/k8s.io/apiextensions-apiserver@v0.37.2" &&
//	  go build -o "${XDG_CACHE_HOME:-$HOME/.cache}/crd-lsp-test/apiextensions-apiserver-v0.37.2" .
//
// CRD_LSP_APIEXTENSIONS_SERVER names another binary. Without etcd or the
// binary the tests skip; under CI=true they fail.
package referee
