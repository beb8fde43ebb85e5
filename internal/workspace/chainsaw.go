// This file reads which files chainsaw Tests use, and how.

package workspace

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// A ChainsawUse is how a chainsaw Test uses a file (a path or a glob,
// clean and absolute).
type ChainsawUse struct {
	Pattern string
	// Op is the operation: assert and error files are partial matches
	// (keys and values may be JMESPath expressions); a patch file is
	// merged into what is there; apply, create and update files are
	// whole objects.
	Op string
	// Templated: chainsaw evaluates "(…)" expressions in its values
	// (spec.template, true unless the Test or the operation turns it
	// off).
	Templated bool
}

// IsChainsawTest reports whether a file's headers hold a chainsaw Test.
func IsChainsawTest(hs []Header) bool {
	for _, h := range hs {
		if h.Kind == "Test" && strings.HasPrefix(h.APIVersion, "chainsaw.kyverno.io/") {
			return true
		}
	}
	return false
}

// ChainsawUses are the files the chainsaw Tests in content (the file at
// path) apply, patch, assert or expect errors from, in every step's try,
// catch, finally and cleanup. A document that does not parse names none.
func ChainsawUses(path string, content []byte) []ChainsawUse {
	type op struct {
		Template *bool  `yaml:"template"`
		File     string `yaml:"file"`
	}
	type operation map[string]yaml.Node
	var out []ChainsawUse
	dir := filepath.Dir(path)
	dec := yaml.NewDecoder(bytes.NewReader(content))
	for {
		var t struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string `yaml:"kind"`
			Spec       struct {
				Template *bool `yaml:"template"`
				Steps    []struct {
					Try, Catch, Finally, Cleanup []operation
				} `yaml:"steps"`
			} `yaml:"spec"`
		}
		err := dec.Decode(&t)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			return out
		}
		if t.Kind != "Test" || !strings.HasPrefix(t.APIVersion, "chainsaw.kyverno.io/") {
			continue
		}
		templated := t.Spec.Template == nil || *t.Spec.Template
		for _, st := range t.Spec.Steps {
			for _, ops := range [][]operation{st.Try, st.Catch, st.Finally, st.Cleanup} {
				for _, o := range ops {
					for _, name := range []string{"apply", "create", "update", "patch", "assert", "error"} {
						n, ok := o[name]
						if !ok {
							continue
						}
						var v op
						if n.Decode(&v) != nil || v.File == "" || strings.Contains(v.File, "://") {
							continue
						}
						p := v.File
						if !filepath.IsAbs(p) {
							p = filepath.Join(dir, filepath.FromSlash(p))
						}
						tpl := templated
						if v.Template != nil {
							tpl = *v.Template
						}
						out = append(out, ChainsawUse{Pattern: filepath.Clean(p), Op: name, Templated: tpl})
					}
				}
			}
		}
	}
}
