// This file decodes the tests' JSON literals as crd-lsp's YAML decoder
// does.

package patchandtransform

import (
	"reflect"

	"github.com/crd-lsp/crd-lsp/internal/testfixtures"
)

// jsonObj and jsonVal decode JSON as our YAML decoder does: integers
// int64, other numbers float64.
var jsonObj, jsonVal = testfixtures.JSONObject, testfixtures.JSONValue

func same(a, b any) bool { return reflect.DeepEqual(a, b) }
