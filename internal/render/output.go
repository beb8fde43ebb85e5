// This file prints a rendering as YAML, as crossplane render does.

package render

import (
	"bytes"

	sigsyaml "sigs.k8s.io/yaml"
)

// YAML prints the desired composite resource and the rendered composed
// resources as a YAML stream, as `crossplane render` does. With only set,
// it prints just the composed resources of that name.
func (o Output) YAML(only string) ([]byte, error) {
	var docs []any
	if only == "" {
		docs = append(docs, o.XR)
	}
	for _, r := range o.Resources {
		if r.Object != nil && (only == "" || r.Name == only) {
			docs = append(docs, r.Object)
		}
	}
	var b bytes.Buffer
	for _, d := range docs {
		y, err := sigsyaml.Marshal(d)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	return b.Bytes(), nil
}
