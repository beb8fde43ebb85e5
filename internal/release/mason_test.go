package release

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// masonPackage is the part of mason-registry's package schema
// (package.schema.json, sources/github/release.json) crd-lsp's definition
// uses.
type masonPackage struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Homepage    string   `yaml:"homepage"`
	Licenses    []string `yaml:"licenses"`
	Languages   []string `yaml:"languages"`
	Categories  []string `yaml:"categories"`
	Source      struct {
		ID    string `yaml:"id"`
		Asset []struct {
			Target string `yaml:"target"`
			File   string `yaml:"file"`
			Bin    string `yaml:"bin"`
		} `yaml:"asset"`
	} `yaml:"source"`
	Bin map[string]string `yaml:"bin"`
}

// TestMasonPackage: editors/mason/package.yaml has what mason-registry's
// schema requires, one asset per platform a release serves, and each
// asset, with the snapshot's version put in as Mason puts it, names an
// archive of the snapshot and the binary inside it.
func TestMasonPackage(t *testing.T) {
	var p masonPackage
	dec := yaml.NewDecoder(strings.NewReader(string(repoFile(t, "editors/mason/package.yaml"))))
	dec.KnownFields(true) // the schema's additionalProperties: false
	if err := dec.Decode(&p); err != nil {
		t.Fatal(err)
	}
	if p.Name != "crd-lsp" || p.Description == "" || !strings.HasPrefix(p.Homepage, "https://") ||
		len(p.Licenses) == 0 || len(p.Languages) == 0 || len(p.Categories) == 0 {
		t.Errorf("required fields missing: %+v", p)
	}
	if !regexp.MustCompile(`^pkg:github/.+/.+@.+`).MatchString(p.Source.ID) {
		t.Errorf("source.id %q is not pkg:github/OWNER/REPO@TAG", p.Source.ID)
	}
	if p.Bin["crd-lsp"] != "{{source.asset.bin}}" {
		t.Errorf("bin: %v", p.Bin)
	}
	mason := map[string]target{}
	for _, tg := range targets {
		os := map[string]string{"windows": "win"}[tg.goos]
		if os == "" {
			os = tg.goos
		}
		arch := map[string]string{"amd64": "x64"}[tg.goarch]
		if arch == "" {
			arch = tg.goarch
		}
		mason[os+"_"+arch] = tg
	}
	var got []string
	for _, a := range p.Source.Asset {
		got = append(got, a.Target)
	}
	sort.Strings(got)
	if fmt.Sprint(got) != "[darwin_arm64 darwin_x64 linux_arm64 linux_x64 win_arm64 win_x64]" {
		t.Errorf("asset targets %v, want the six platforms of a release", got)
	}

	s := distDir(t)
	render := func(tmpl string) string { // Mason's {{ version | strip_prefix "v" }}
		return strings.ReplaceAll(tmpl, `{{ version | strip_prefix "v" }}`, strings.TrimPrefix("v"+s.version, "v"))
	}
	for _, a := range p.Source.Asset {
		tg, ok := mason[a.Target]
		if !ok {
			continue
		}
		file, bin := render(a.File), render(a.Bin)
		if want := s.archive(tg); !strings.HasSuffix(want, "/"+file) {
			t.Errorf("%s: file %s, the release's archive is %s", a.Target, file, want)
			continue
		}
		if _, ok := readArchive(t, s.archive(tg))[bin]; !ok {
			t.Errorf("%s: no %s in %s", a.Target, bin, file)
		}
	}
}
