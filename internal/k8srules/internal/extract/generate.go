package extract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
)

// The modules the rules are read from: k8s.io/api at the version crd-lsp
// depends on, and the k8s.io/kubernetes release of it for defaulting.
const (
	APIModule  = "k8s.io/api@v0.37.2"
	KubeModule = "k8s.io/kubernetes@v1.37.2"
)

// Generate reads both modules (from the module cache, downloading them
// through the Go module proxy if needed) and returns rules.json's bytes.
func Generate() ([]byte, error) {
	apiDir, err := ModuleDir(APIModule)
	if err != nil {
		return nil, err
	}
	kubeDir, err := ModuleDir(KubeModule)
	if err != nil {
		return nil, err
	}
	rules, err := Extract(apiDir, kubeDir)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString("{\n  \"generatedFrom\": " + quote(APIModule) + ",\n  \"rules\": [\n")
	for i, r := range rules {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		buf.WriteString("    ")
		buf.Write(b)
		if i < len(rules)-1 {
			buf.WriteString(",")
		}
		buf.WriteString("\n")
	}
	buf.WriteString("  ]\n}\n")
	return buf.Bytes(), nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ModuleDir downloads (or finds in the cache) one module version
// ("path@version") through the Go module proxy and returns its folder:
// the one way this package and its tests reach a module's files.
func ModuleDir(mod string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", mod)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return "", fmt.Errorf("go mod download %s: %s", mod, info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %v: %s", mod, err, strings.TrimSpace(stderr.String()))
	}
	if info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no folder", mod)
	}
	return info.Dir, nil
}
