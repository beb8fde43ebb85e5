// This file words what findings depend on: a schema catalog's schema (what it
// lacks), the function a step runs, the file that lists a package's
// dependencies.

package analysis

import (
	"strings"

	"github.com/crd-lsp/crd-lsp/internal/schemas"
)

// catalogFidelity says what a schema from a schema catalog lacks: the
// catalogs hold JSON Schemas converted from CRDs, without CEL rules.
const catalogFidelity = "a JSON Schema converted from a CRD: no CEL rules, reduced fidelity"

// catalogNoted marks findings made with a catalog's schema as such, naming
// where it came from (a real CRD of the kind would say more).
func catalogNoted(sch *schemas.Schema, found bool, diags []Diagnostic) []Diagnostic {
	if !found || sch == nil || sch.Source.Kind != schemas.SourceCatalog {
		return diags
	}
	for i := range diags {
		diags[i].Message += " (schema from the catalog " + sch.Source.Name + ", " + catalogFidelity + ")"
	}
	return diags
}

// functionName is how messages name the function a step runs: as the
// project that embeds it describes it, else its functionRef name.
func (env Env) functionName(fn string) string {
	if env.Workspace.EmbeddedFunction != nil {
		if d := env.Workspace.EmbeddedFunction(fn); d != "" {
			return d
		}
	}
	return orFunction(fn)
}

// dependsOn is where the file's package root lists dependencies.
func dependsOn(env Env) string {
	if env.Workspace.DependsOn == "" {
		return "dependsOn in crossplane.yaml"
	}
	return env.Workspace.DependsOn
}

// projectFile is the name of the file's package root file.
func projectFile(env Env) string {
	d := dependsOn(env)
	return d[strings.LastIndex(d, " ")+1:]
}
