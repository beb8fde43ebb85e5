package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/lsp"
)

// settingKeys lists the dotted keys of the crdLsp object the server reads.
func settingKeys(t reflect.Type, prefix string) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			out = append(out, settingKeys(f.Type, prefix+name+".")...)
			continue
		}
		out = append(out, prefix+name)
	}
	return out
}

// TestVSCodeContributesEverySetting: the VS Code extension contributes a
// crdLsp.* setting for every key of the crdLsp object the server reads,
// and none the server does not read (besides its own server.path).
func TestVSCodeContributesEverySetting(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "editors", "vscode", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	contributed := map[string]bool{}
	for k := range pkg.Contributes.Configuration.Properties {
		contributed[strings.TrimPrefix(k, "crdLsp.")] = true
	}
	delete(contributed, "server.path") // the extension's own
	keys := settingKeys(reflect.TypeOf(lsp.Settings{}), "")
	sort.Strings(keys)
	for _, k := range keys {
		if !contributed[k] {
			t.Errorf("editors/vscode/package.json does not contribute crdLsp.%s", k)
		}
		delete(contributed, k)
	}
	for k := range contributed {
		t.Errorf("editors/vscode/package.json contributes crdLsp.%s, which the server does not read", k)
	}
}
