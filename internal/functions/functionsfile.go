// This file reads Crossplane Function objects, as a functions.yaml for
// crossplane render --functions holds them.

package functions

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// Function is a Crossplane Function object (pkg.crossplane.io), as a
// functions.yaml for `crossplane render --functions` lists them.
type Function struct {
	Name        string
	Package     string
	Annotations map[string]string
}

// IsFunction says whether a decoded object is a Crossplane Function.
func IsFunction(obj map[string]any) bool {
	av, _ := obj["apiVersion"].(string)
	return obj["kind"] == "Function" && strings.HasPrefix(av, "pkg.crossplane.io/")
}

// FunctionFrom reads a decoded Function object.
func FunctionFrom(obj map[string]any) Function {
	md, _ := obj["metadata"].(map[string]any)
	spec, _ := obj["spec"].(map[string]any)
	fn := Function{Annotations: map[string]string{}}
	fn.Name, _ = md["name"].(string)
	fn.Package, _ = spec["package"].(string)
	ann, _ := md["annotations"].(map[string]any)
	for k, v := range ann {
		fn.Annotations[k] = fmt.Sprint(v)
	}
	return fn
}

// ParseFunctions reads the Function objects of a YAML stream (a
// functions.yaml, exactly as `crossplane render --functions` takes it);
// other objects are ignored. A document that does not parse is an error
// naming it (1-based).
func ParseFunctions(data []byte) ([]Function, error) {
	rd := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []Function
	var errs []error
	for i := 1; ; i++ {
		doc, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("document %d: %w", i, err))
			break
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var obj map[string]any
		if err := sigsyaml.Unmarshal(doc, &obj); err != nil {
			errs = append(errs, fmt.Errorf("document %d: %w", i, err))
			continue
		}
		if IsFunction(obj) {
			fn := FunctionFrom(obj)
			if fn.Name == "" {
				errs = append(errs, fmt.Errorf("document %d: a Function without metadata.name", i))
				continue
			}
			out = append(out, fn)
		}
	}
	return out, errors.Join(errs...)
}
