// This file says what each release of function-go-templating does
// differently, as its recorded answers (testdata/conformance) show.

package gotemplating

import (
	"strings"

	"github.com/Masterminds/semver/v3"
)

// behaviour is what one release of function-go-templating does where
// releases differ. Every difference below was introduced in v0.12.0 (git
// tag --contains of the commit that added it) and is recorded at v0.11.9
// and v0.12.2.
type behaviour struct {
	// release is the release followed ("" when none is pinned).
	release string
	// v012: inline.templates and options exist in the input
	// (input/v1beta1/input.go); a YAML error of the output names its line
	// in the whole output (fn.go getYamlErrorContextFromErr); an XR
	// document sets the composite's readiness and leaves its status alone
	// when neither it nor the desired composite has one (fn.go:224-266);
	// ExtraResources requirements may name a namespace and are asked for
	// under requirements.resources too; the required resources a call was
	// given are left in the context (extraresources.go); requiredResources
	// are also offered to templates as extraResources (fn.go convertToMap);
	// getExtraResources reads requiredResources first and
	// getExtraResourcesFromContext exists (function_maps.go).
	v012 bool
	// composedConnectionDetails: the template function
	// getComposedConnectionDetails exists. It was added on the main branch
	// after v0.12.2 (commit 162e605) and is in no release yet.
	composedConnectionDetails bool
	// nestedFieldErrors: encoding/json names an embedded struct in a
	// field's path ("TargetedCondition.Condition.status"), as the Go
	// release v0.12.2 was built with does; v0.11.9's did not.
	nestedFieldErrors bool
}

// newestRecorded is the newest release whose answers are recorded.
const newestRecorded = "v0.12.2"

// behaviourOf is the behaviour of a release ("" when the workspace pins
// none: then every template function any release or the main branch
// offers is defined, so that crd-lsp never fails a template the function
// a user installs may run).
func behaviourOf(release string) behaviour {
	b := behaviour{release: release, v012: true, composedConnectionDetails: true, nestedFieldErrors: true}
	if release == "" {
		return b
	}
	v, err := semver.NewVersion(strings.TrimPrefix(release, "v"))
	if err != nil {
		return b
	}
	if v.LessThan(semver.MustParse("0.12.0")) {
		b.v012, b.nestedFieldErrors = false, false
	}
	if !v.GreaterThan(semver.MustParse(newestRecorded)) {
		b.composedConnectionDetails = false
	}
	return b
}

// defines says whether the release defines a template function of its
// own.
func (b behaviour) defines(name string) bool {
	switch name {
	case "getComposedConnectionDetails":
		return b.composedConnectionDetails
	case "getExtraResourcesFromContext":
		return b.v012
	}
	return true
}
