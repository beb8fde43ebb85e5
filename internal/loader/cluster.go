package loader

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/crd-lsp/crd-lsp/internal/analysis"
	"github.com/crd-lsp/crd-lsp/internal/document"
	"github.com/crd-lsp/crd-lsp/internal/functions/environmentconfigs"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// ReadCluster reads what crd-lsp render is told of the cluster, as
// crossplane render takes it: extra files of resources (EnvironmentConfigs
// and any resources functions require; given any, their EnvironmentConfigs
// are all the cluster holds) and context values (KEY=FILE, the file a JSON
// or YAML value). A document that does not parse, a KEY=FILE without a
// key, or a file that cannot be read is an error naming it.
func ReadCluster(extra, contexts []string) (analysis.Cluster, error) {
	var c analysis.Cluster
	for _, p := range extra {
		b, err := workspace.ReadFile(p, workspace.DefaultMaxFileSize)
		if err != nil {
			return c, err
		}
		f := document.Parse(p, 0, b)
		for _, d := range f.Docs {
			if len(d.Errors) > 0 {
				line, col := f.Mapper.LineCol(d.Errors[0].Span.Start)
				return c, fmt.Errorf("%s:%d:%d: %s", p, line, col, d.Errors[0].Message)
			}
			if d.Root == nil {
				continue // an empty document
			}
			obj, err := d.Object()
			m, _ := obj.(map[string]any)
			if err == nil && m == nil {
				err = fmt.Errorf("not an object")
			}
			if err != nil {
				line, _ := f.Mapper.LineCol(d.Span.Start)
				return c, fmt.Errorf("%s:%d: %v", p, line, err)
			}
			if environmentconfigs.IsConfig(m) {
				c.EnvironmentConfigs = append(c.EnvironmentConfigs, m)
			} else {
				c.Resources = append(c.Resources, m)
			}
		}
		c.Complete = true
	}
	if len(extra) > 0 {
		c.From = "in --extra-resources"
	}
	for _, kv := range contexts {
		key, p, ok := strings.Cut(kv, "=")
		if !ok || key == "" || p == "" {
			return c, fmt.Errorf("--context %q: want KEY=FILE", kv)
		}
		b, err := workspace.ReadFile(p, workspace.DefaultMaxFileSize)
		if err != nil {
			return c, err
		}
		var v any
		if err := yaml.Unmarshal(b, &v); err != nil {
			return c, fmt.Errorf("--context %s: %s: %v", key, p, err)
		}
		if c.Context == nil {
			c.Context = map[string]any{}
		}
		c.Context[key] = v
	}
	return c, nil
}
