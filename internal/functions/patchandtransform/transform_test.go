package patchandtransform

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/crd-lsp/crd-lsp/internal/fieldpath"
	"github.com/crd-lsp/crd-lsp/internal/paved"
)

// transformCase is one transform on one input. Cases mirror
// function-patch-and-transform's transforms_test.go (with the function's
// input checks applied first, as the function applies them) and add its
// quirks.
type transformCase struct {
	tr      string // the transform, as JSON
	in      any
	want    any    // value and Go type
	err     string // exact error message; "" for success
	invalid bool   // the transform itself is invalid
	field   string // TransformError.Field
}

func runTransformCases(t *testing.T, cases map[string]transformCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Transform(jsonObj(t, tc.tr), tc.in)
			if tc.err == "" {
				if err != nil {
					t.Fatalf("Transform(%s, %#v): %v", tc.tr, tc.in, err)
				}
				if !same(got, tc.want) {
					t.Fatalf("Transform(%s, %#v) = %#v (%T), want %#v (%T)", tc.tr, tc.in, got, got, tc.want, tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Transform(%s, %#v) = %#v, want error %q", tc.tr, tc.in, got, tc.err)
			}
			if err.Error() != tc.err {
				t.Errorf("error\n got  %q\n want %q", err.Error(), tc.err)
			}
			var te *TransformError
			if !errors.As(err, &te) {
				t.Fatalf("error %T is not a *TransformError", err)
			}
			if te.Invalid != tc.invalid {
				t.Errorf("Invalid = %v, want %v", te.Invalid, tc.invalid)
			}
			if te.Field.String() != tc.field {
				t.Errorf("Field = %q, want %q", te.Field.String(), tc.field)
			}
		})
	}
}

func TestTransformMap(t *testing.T) {
	runTransformCases(t, map[string]transformCase{
		"NonStringInput": {tr: `{"type":"map","map":{"5":"five"}}`, in: int64(5),
			err: "map transform could not resolve: type int64 is not supported for map transform"},
		"KeyNotFound": {tr: `{"type":"map","map":{"a":"b"}}`, in: "ola",
			err: "map transform could not resolve: key ola is not found in map"},
		"SuccessString":  {tr: `{"type":"map","map":{"ola":"voila"}}`, in: "ola", want: "voila"},
		"SuccessNumber":  {tr: `{"type":"map","map":{"ola":1}}`, in: "ola", want: 1.0},
		"SuccessBoolean": {tr: `{"type":"map","map":{"ola":true}}`, in: "ola", want: true},
		"SuccessObject": {tr: `{"type":"map","map":{"ola":{"foo":"bar","n":[1,2.5]}}}`, in: "ola",
			want: map[string]any{"foo": "bar", "n": []any{1.0, 2.5}}},
		"SuccessSlice": {tr: `{"type":"map","map":{"ola":["foo","bar"]}}`, in: "ola", want: []any{"foo", "bar"}},
		"NullValue": {tr: `{"type":"map","map":{"ola":null}}`, in: "ola",
			err: "map transform could not resolve: value for key ola is not valid JSON: unexpected end of JSON input"},
		"NoPairs": {tr: `{"type":"map","map":{}}`, in: "ola", invalid: true, field: "map",
			err: "map: Required value: at least one pair must be specified if a map transform is specified"},
		"NoConfig": {tr: `{"type":"map"}`, in: "ola", invalid: true, field: "map",
			err: "map: Required value: given transform type map requires configuration"},
		"NotAnObject": {tr: `{"type":"map","map":["a"]}`, in: "ola", invalid: true, field: "map",
			err: "map: must be an object, not an array"},
	})
}

func TestTransformMatch(t *testing.T) {
	lit := func(l, result string) string {
		return fmt.Sprintf(`{"type":"literal","literal":%q,"result":%s}`, l, result)
	}
	runTransformCases(t, map[string]transformCase{
		"ErrNonStringInput": {tr: `{"type":"match","match":{"patterns":[` + lit("5", `"x"`) + `]}}`, in: int64(5), field: "match.patterns[0]",
			err: "match transform could not resolve: cannot match pattern at index 0: unsupported input type 'int64'"},
		"ErrNilInputLiteral": {tr: `{"type":"match","match":{"patterns":[` + lit("5", `"x"`) + `]}}`, in: nil, field: "match.patterns[0]",
			err: "match transform could not resolve: cannot match pattern at index 0: unsupported input type '<nil>'"},
		"ErrNilInputRegexp": {tr: `{"type":"match","match":{"patterns":[{"type":"regexp","regexp":"a","result":1}]}}`, in: nil, field: "match.patterns[0]",
			err: "match transform could not resolve: cannot match pattern at index 0: unsupported input type 'null'"},
		"ErrFallbackValueAndToInput": {tr: `{"type":"match","match":{"patterns":[` + lit("a", `1`) + `],"fallbackValue":"foo","fallbackTo":"Input"}}`, in: "foo",
			field: "match.fallbackTo", err: "match transform could not resolve: cannot set both a fallback value and the fallback to input flag"},
		"NoPatterns": {tr: `{"type":"match","match":{"patterns":[],"fallbackValue":"bar"}}`, in: "foo", invalid: true, field: "match.patterns",
			err: "match.patterns: Required value: at least one pattern must be specified if a match transform is specified"},
		"FallbackValue":            {tr: `{"type":"match","match":{"patterns":[` + lit("a", `1`) + `],"fallbackValue":"bar"}}`, in: "foo", want: "bar"},
		"FallbackValueExplicit":    {tr: `{"type":"match","match":{"patterns":[` + lit("a", `1`) + `],"fallbackValue":"bar","fallbackTo":"Value"}}`, in: "foo", want: "bar"},
		"FallbackToUnknownIsValue": {tr: `{"type":"match","match":{"patterns":[` + lit("a", `1`) + `],"fallbackValue":"bar","fallbackTo":"Other"}}`, in: "foo", want: "bar"},
		"FallbackNumber":           {tr: `{"type":"match","match":{"patterns":[` + lit("a", `1`) + `],"fallbackValue":7}}`, in: "foo", want: 7.0},
		"FallbackNil":              {tr: `{"type":"match","match":{"patterns":[` + lit("a", `1`) + `],"fallbackValue":null}}`, in: "foo", want: nil},
		"NoMatchNoFallback":        {tr: `{"type":"match","match":{"patterns":[` + lit("a", `1`) + `]}}`, in: "foo", want: nil},
		"FallbackToInput":          {tr: `{"type":"match","match":{"patterns":[` + lit("a", `1`) + `],"fallbackTo":"Input"}}`, in: "foo", want: "foo"},
		"FallbackNilToInput":       {tr: `{"type":"match","match":{"patterns":[` + lit("a", `1`) + `],"fallbackValue":null,"fallbackTo":"Input"}}`, in: "foo", want: "foo"},
		"MatchLiteral":             {tr: `{"type":"match","match":{"patterns":[` + lit("foo", `"bar"`) + `]}}`, in: "foo", want: "bar"},
		"MatchLiteralFirst":        {tr: `{"type":"match","match":{"patterns":[` + lit("foo", `"bar"`) + `,` + lit("foo", `"not this"`) + `]}}`, in: "foo", want: "bar"},
		"ResultObject":             {tr: `{"type":"match","match":{"patterns":[` + lit("foo", `{"Hello":"World"}`) + `]}}`, in: "foo", want: map[string]any{"Hello": "World"}},
		"ResultSlice":              {tr: `{"type":"match","match":{"patterns":[` + lit("foo", `["Hello","World"]`) + `]}}`, in: "foo", want: []any{"Hello", "World"}},
		"ResultNumber":             {tr: `{"type":"match","match":{"patterns":[` + lit("foo", `5`) + `]}}`, in: "foo", want: 5.0},
		"ResultBool":               {tr: `{"type":"match","match":{"patterns":[` + lit("foo", `true`) + `]}}`, in: "foo", want: true},
		"ResultNil":                {tr: `{"type":"match","match":{"patterns":[` + lit("foo", `null`) + `]}}`, in: "foo", want: nil},
		"MatchRegexp":              {tr: `{"type":"match","match":{"patterns":[{"type":"regexp","regexp":"^foo.*$","result":"Hello World"}]}}`, in: "foobar", want: "Hello World"},
		"RegexpIsRE2Substring":     {tr: `{"type":"match","match":{"patterns":[{"type":"regexp","regexp":"o+b","result":1}]}}`, in: "foobar", want: 1.0},
		"ErrMissingRegexp": {tr: `{"type":"match","match":{"patterns":[{"type":"regexp","result":1}]}}`, in: "x", invalid: true, field: "match.patterns[0].regexp",
			err: "match.patterns[0].regexp: Required value: regexp pattern type requires a regexp"},
		"ErrInvalidRegexp": {tr: `{"type":"match","match":{"patterns":[{"type":"regexp","regexp":"?="}]}}`, in: "x", invalid: true, field: "match.patterns[0].regexp",
			err: "match.patterns[0].regexp: Invalid value: \"?=\": invalid regexp: error parsing regexp: missing argument to repetition operator: `?`"},
		"ErrMissingLiteral": {tr: `{"type":"match","match":{"patterns":[{"type":"literal"}]}}`, in: "x", invalid: true, field: "match.patterns[0].literal",
			err: "match.patterns[0].literal: Required value: literal pattern type requires a literal"},
		"ErrUnknownPatternType": {tr: `{"type":"match","match":{"patterns":[{"type":"glob","literal":"x"}]}}`, in: "x", invalid: true, field: "match.patterns[0].type",
			err: "match.patterns[0].type: Invalid value: \"glob\": unknown pattern type"},
		// The function's input check accepts a pattern without a type, but
		// matching has no default for it.
		"PatternWithoutType": {tr: `{"type":"match","match":{"patterns":[{"literal":"x","result":1}]}}`, in: "x", field: "match.patterns[0]",
			err: "match transform could not resolve: cannot match pattern at index 0: unsupported pattern type ''"},
		"PatternNotAnObject": {tr: `{"type":"match","match":{"patterns":["x"]}}`, in: "x", invalid: true, field: "match.patterns[0]",
			err: "match.patterns[0]: must be an object, not a string"},
	})
}

func TestTransformMath(t *testing.T) {
	runTransformCases(t, map[string]transformCase{
		"InvalidType": {tr: `{"type":"math","math":{"type":"bad"}}`, in: int64(25), invalid: true, field: "math.type",
			err: "math.type: Invalid value: \"bad\": unknown math transform type"},
		"TypeRequired": {tr: `{"type":"math","math":{"multiply":2}}`, in: int64(25), invalid: true, field: "math.type",
			err: "math.type: Required value: math transform type is required"},
		"NonNumberInput": {tr: `{"type":"math","math":{"type":"Multiply","multiply":2}}`, in: "ola",
			err: "math transform could not resolve: input is required to be a number for math transformer, got string"},
		"NilInput": {tr: `{"type":"math","math":{"type":"Multiply","multiply":2}}`, in: nil,
			err: "math transform could not resolve: input is required to be a number for math transformer, got <nil>"},
		"MultiplyNoConfig": {tr: `{"type":"math","math":{"type":"Multiply"}}`, in: int64(25), invalid: true, field: "math.multiply",
			err: "math.multiply: Required value: must specify a value if a multiply math transform is specified"},
		"MultiplyNotAnInteger": {tr: `{"type":"math","math":{"type":"Multiply","multiply":2.5}}`, in: int64(25), invalid: true, field: "math.multiply",
			err: "math.multiply: must be an integer, not 2.5"},
		"MultiplyString": {tr: `{"type":"math","math":{"type":"Multiply","multiply":"2"}}`, in: int64(25), invalid: true, field: "math.multiply",
			err: "math.multiply: must be an integer, not a string"},
		"MultiplyIntegralFloat":      {tr: `{"type":"math","math":{"type":"Multiply","multiply":2.0}}`, in: int64(3), want: int64(6)},
		"MultiplySuccess":            {tr: `{"type":"math","math":{"type":"Multiply","multiply":2}}`, in: int64(3), want: int64(6)},
		"MultiplyGoInt":              {tr: `{"type":"math","math":{"type":"Multiply","multiply":2}}`, in: 3, want: int64(6)},
		"MultiplyFloat":              {tr: `{"type":"math","math":{"type":"Multiply","multiply":2}}`, in: 1.25, want: 2.5},
		"MultiplyIntegralFloatInput": {tr: `{"type":"math","math":{"type":"Multiply","multiply":2}}`, in: 3.0, want: 6.0},
		"ClampMinSuccess":            {tr: `{"type":"math","math":{"type":"ClampMin","clampMin":2}}`, in: int64(1), want: int64(2)},
		"ClampMinNoChange":           {tr: `{"type":"math","math":{"type":"ClampMin","clampMin":2}}`, in: int64(3), want: int64(3)},
		"ClampMinFloatClamped":       {tr: `{"type":"math","math":{"type":"ClampMin","clampMin":2}}`, in: 1.9, want: int64(2)},
		"ClampMinFloatKept":          {tr: `{"type":"math","math":{"type":"ClampMin","clampMin":2}}`, in: 2.5, want: 2.5},
		"ClampMinNoConfig": {tr: `{"type":"math","math":{"type":"ClampMin"}}`, in: int64(25), invalid: true, field: "math.clampMin",
			err: "math.clampMin: Required value: must specify a value if a clamp min math transform is specified"},
		"ClampMaxSuccess":  {tr: `{"type":"math","math":{"type":"ClampMax","clampMax":2}}`, in: int64(3), want: int64(2)},
		"ClampMaxNoChange": {tr: `{"type":"math","math":{"type":"ClampMax","clampMax":2}}`, in: int64(1), want: int64(1)},
		// The input is compared truncated to an integer: 2.5 is not above 2.
		"ClampMaxFloatTruncated": {tr: `{"type":"math","math":{"type":"ClampMax","clampMax":2}}`, in: 2.5, want: 2.5},
		"ClampMaxNoConfig": {tr: `{"type":"math","math":{"type":"ClampMax"}}`, in: int64(25), invalid: true, field: "math.clampMax",
			err: "math.clampMax: Required value: must specify a value if a clamp max math transform is specified"},
		"NoConfig": {tr: `{"type":"math"}`, in: int64(1), invalid: true, field: "math",
			err: "math: Required value: given transform type math requires configuration"},
	})
}

func TestTransformString(t *testing.T) {
	conv := func(c string) string {
		return fmt.Sprintf(`{"type":"string","string":{"type":"Convert","convert":%q}}`, c)
	}
	runTransformCases(t, map[string]transformCase{
		"NotSupportedType": {tr: `{"type":"string","string":{"type":"Something"}}`, in: "value", invalid: true, field: "string.type",
			err: "string.type: Invalid value: \"Something\": unknown string transform type"},
		"TypeRequired": {tr: `{"type":"string","string":{"fmt":"%s"}}`, in: "value", invalid: true, field: "string.type",
			err: "string.type: Required value: string transform type is required"},
		"FmtFailed": {tr: `{"type":"string","string":{"type":"Format"}}`, in: "value", invalid: true, field: "string.fmt",
			err: "string.fmt: Required value: format transform requires a format"},
		"FmtString":     {tr: `{"type":"string","string":{"type":"Format","fmt":"verycool%s"}}`, in: "thing", want: "verycoolthing"},
		"FmtInteger":    {tr: `{"type":"string","string":{"type":"Format","fmt":"the largest %d"}}`, in: int64(8), want: "the largest 8"},
		"FmtWrongVerb":  {tr: `{"type":"string","string":{"type":"Format","fmt":"%s"}}`, in: int64(8), want: "%!s(int64=8)"},
		"FmtFloat":      {tr: `{"type":"string","string":{"type":"Format","fmt":"%v"}}`, in: 1.5, want: "1.5"},
		"FmtMissingArg": {tr: `{"type":"string","string":{"type":"Format","fmt":"%s-%s"}}`, in: "a", want: "a-%!s(MISSING)"},
		"FmtNil":        {tr: `{"type":"string","string":{"type":"Format","fmt":"%v"}}`, in: nil, want: "<nil>"},
		"ConvertNotSet": {tr: `{"type":"string","string":{"type":"Convert"}}`, in: "crossplane", invalid: true, field: "string.convert",
			err: "string.convert: Required value: convert transform requires a conversion type"},
		"ConvertTypeFailed": {tr: conv("Something"), in: "crossplane", field: "string.convert",
			err: "string transform could not resolve: type Something is not supported for string convert"},
		"ToUpper":       {tr: conv("ToUpper"), in: "crossplane", want: "CROSSPLANE"},
		"ToLower":       {tr: conv("ToLower"), in: "CrossPlane", want: "crossplane"},
		"ToUpperNumber": {tr: conv("ToUpper"), in: 1.5, want: "1.5"},
		"ToBase64":      {tr: conv("ToBase64"), in: "CrossPlane", want: "Q3Jvc3NQbGFuZQ=="},
		"FromBase64":    {tr: conv("FromBase64"), in: "Q3Jvc3NQbGFuZQ==", want: "CrossPlane"},
		"FromBase64Error": {tr: conv("FromBase64"), in: "ThisStringIsNotBase64", field: "string.convert",
			err: "string transform could not resolve: string is not valid base64: illegal base64 data at input byte 20"},
		"ToSha1":                 {tr: conv("ToSha1"), in: "Crossplane", want: "3b683dc8ff44122b331a5e4f253dd69d90726d75"},
		"ToSha256":               {tr: conv("ToSha256"), in: "Crossplane", want: "19c8a7c24ed0067f606815b59e5b82d92935ff69deed04171457a55018e31224"},
		"ToSha512":               {tr: conv("ToSha512"), in: "Crossplane", want: "0016037c62c92b5cc4a282fbe30cdd228fa001624b26fd31baa9fcb76a9c60d48e2e7a16cf8729a2d9cba3d23e1d846e7721a5381b9a92dd813178e9a6686205"},
		"ToSha512Int":            {tr: conv("ToSha512"), in: int64(1234), want: "d404559f602eab6fd602ac7680dacbfaadd13630335e951f097af3900e9de176b6db28512f2e000b9d04fba5133e8b1c6e8df59db3a8ab9d60be4b97cc9e81db"},
		"ToSha512Str":            {tr: conv("ToSha512"), in: "1234", want: "d404559f602eab6fd602ac7680dacbfaadd13630335e951f097af3900e9de176b6db28512f2e000b9d04fba5133e8b1c6e8df59db3a8ab9d60be4b97cc9e81db"},
		"ToSha1Object":           {tr: conv("ToSha1"), in: map[string]any{"b": int64(1), "a": "x"}, want: "f689c456a402d13a01031f20124e1efc42397e9f"},
		"ToAdler32":              {tr: conv("ToAdler32"), in: "Crossplane", want: "373097499"},
		"ToAdler32Unicode":       {tr: conv("ToAdler32"), in: "⡌⠁⠧⠑ ⠼⠁⠒  ⡍⠜⠇⠑⠹⠰⠎ ⡣⠕⠌", want: "4110427190"},
		"ToJsonObject":           {tr: conv("ToJson"), in: map[string]any{"foo": "bar"}, want: `{"foo":"bar"}`},
		"ToJsonString":           {tr: conv("ToJson"), in: "<a&b>", want: `"\u003ca\u0026b\u003e"`},
		"ToJsonNumber":           {tr: conv("ToJson"), in: 3.0, want: `3`},
		"ToJsonNil":              {tr: conv("ToJson"), in: nil, want: `null`},
		"TrimPrefix":             {tr: `{"type":"string","string":{"type":"TrimPrefix","trim":"https://"}}`, in: "https://crossplane.io", want: "crossplane.io"},
		"TrimSuffix":             {tr: `{"type":"string","string":{"type":"TrimSuffix","trim":"-test"}}`, in: "my-string-test", want: "my-string"},
		"TrimPrefixWithoutMatch": {tr: `{"type":"string","string":{"type":"TrimPrefix","trim":"https://"}}`, in: "crossplane.io", want: "crossplane.io"},
		"TrimSuffixWithoutMatch": {tr: `{"type":"string","string":{"type":"TrimSuffix","trim":"-test"}}`, in: "my-string", want: "my-string"},
		"TrimNoConfig": {tr: `{"type":"string","string":{"type":"TrimSuffix"}}`, in: "x", invalid: true, field: "string.trim",
			err: "string.trim: Required value: trim transform requires a trim value"},
		"RegexpNotCompiling": {tr: `{"type":"string","string":{"type":"Regexp","regexp":{"match":"[a-z"}}}`, in: "my-string", invalid: true, field: "string.regexp.match",
			err: "string.regexp.match: Invalid value: \"[a-z\": invalid regexp: error parsing regexp: missing closing ]: `[a-z`"},
		"RegexpEmpty": {tr: `{"type":"string","string":{"type":"Regexp","regexp":{"match":""}}}`, in: "my-string", invalid: true, field: "string.regexp.match",
			err: "string.regexp.match: Required value: regexp transform requires a match"},
		"RegexpSimpleMatch":    {tr: `{"type":"string","string":{"type":"Regexp","regexp":{"match":"[0-9]"}}}`, in: "my-1-string", want: "1"},
		"RegexpCaptureGroup":   {tr: `{"type":"string","string":{"type":"Regexp","regexp":{"match":"my-([0-9]+)-string","group":1}}}`, in: "my-1-string", want: "1"},
		"RegexpUnmatchedGroup": {tr: `{"type":"string","string":{"type":"Regexp","regexp":{"match":"(a)|(b)","group":1}}}`, in: "b", want: ""},
		"RegexpNoSuchCaptureGroup": {tr: `{"type":"string","string":{"type":"Regexp","regexp":{"match":"my-([0-9]+)-string","group":2}}}`, in: "my-1-string", field: "string.regexp",
			err: "string transform could not resolve: regexp \"my-([0-9]+)-string\" had no matches for group 2"},
		"RegexpNoMatch": {tr: `{"type":"string","string":{"type":"Regexp","regexp":{"match":"[0-9]"}}}`, in: "abc", field: "string.regexp",
			err: "string transform could not resolve: regexp \"[0-9]\" had no matches for group 0"},
		"RegexpOfNumber":     {tr: `{"type":"string","string":{"type":"Regexp","regexp":{"match":"[0-9]+"}}}`, in: int64(42), want: "42"},
		"JoinString":         {tr: `{"type":"string","string":{"type":"Join","join":{"separator":","}}}`, in: []any{"cross", "plane"}, want: "cross,plane"},
		"JoinEmptySeparator": {tr: `{"type":"string","string":{"type":"Join","join":{"separator":""}}}`, in: []any{"cross", "plane"}, want: "crossplane"},
		"JoinDifferentTypes": {tr: `{"type":"string","string":{"type":"Join","join":{"separator":"-"}}}`, in: []any{"cross", "plane", int64(42)}, want: "cross-plane-42"},
		// The function drops one byte after the last element, whatever the
		// separator's length.
		"JoinLongSeparator": {tr: `{"type":"string","string":{"type":"Join","join":{"separator":", "}}}`, in: []any{"a", "b"}, want: "a, b,"},
		"JoinEmpty":         {tr: `{"type":"string","string":{"type":"Join","join":{"separator":","}}}`, in: []any{}, want: ""},
		"JoinNotAnArray": {tr: `{"type":"string","string":{"type":"Join","join":{"separator":","}}}`, in: "a,b",
			err: "string transform could not resolve: could not parse input array"},
		"JoinNoConfig": {tr: `{"type":"string","string":{"type":"Join"}}`, in: []any{}, invalid: true, field: "string.join",
			err: "string.join: Required value: join transform requires a join"},
		"ReplaceFound":    {tr: `{"type":"string","string":{"type":"Replace","replace":{"search":"Cr","replace":"B"}}}`, in: "Crossplane", want: "Bossplane"},
		"ReplaceNotFound": {tr: `{"type":"string","string":{"type":"Replace","replace":{"search":"xx","replace":"zz"}}}`, in: "Crossplane", want: "Crossplane"},
		"ReplaceRemove":   {tr: `{"type":"string","string":{"type":"Replace","replace":{"search":"ss"}}}`, in: "Crossplane", want: "Croplane"},
		"ReplaceNoSearch": {tr: `{"type":"string","string":{"type":"Replace","replace":{"replace":"x"}}}`, in: "Crossplane", invalid: true, field: "string.replace.search",
			err: "string.replace.search: Required value: replace transform requires a search"},
		"FieldNotAString": {tr: `{"type":"string","string":{"type":"Format","fmt":5}}`, in: "x", invalid: true, field: "string.fmt",
			err: "string.fmt: must be a string, not a number"},
	})
}

func TestTransformConvert(t *testing.T) {
	conv := func(to string, format ...string) string {
		if len(format) > 0 {
			return fmt.Sprintf(`{"type":"convert","convert":{"toType":%q,"format":%q}}`, to, format[0])
		}
		return fmt.Sprintf(`{"type":"convert","convert":{"toType":%q}}`, to)
	}
	runTransformCases(t, map[string]transformCase{
		"StringToBool":        {tr: conv("bool"), in: "true", want: true},
		"StringToBoolShort":   {tr: conv("bool"), in: "F", want: false},
		"StringToBoolInvalid": {tr: conv("bool"), in: "yes", err: "convert transform could not resolve: strconv.ParseBool: parsing \"yes\": invalid syntax"},
		"StringToFloat64":     {tr: conv("float64"), in: "1000", want: 1000.0},
		"StringToInt":         {tr: conv("int"), in: "-7", want: int64(-7)},
		"StringToInt64Invalid": {tr: conv("int64"), in: "1.5",
			err: "convert transform could not resolve: strconv.ParseInt: parsing \"1.5\": invalid syntax"},
		"StringToQuantityFloat64": {tr: conv("float64", "quantity"), in: "1000m", want: 1.0},
		"StringToQuantityGi":      {tr: conv("float64", "quantity"), in: "2Gi", want: 2147483648.0},
		"StringToQuantityInvalid": {tr: conv("float64", "quantity"), in: "1000 blabla",
			err: "convert transform could not resolve: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
		"SameTypeNoOp":          {tr: conv("bool"), in: true, want: true},
		"SameTypeIgnoresFormat": {tr: conv("string", "json"), in: "x", want: "x"},
		"IntAliasToInt64":       {tr: conv("int"), in: int64(1), want: int64(1)},
		"StringToObject":        {tr: conv("object", "json"), in: `{"foo":"bar","n":1}`, want: map[string]any{"foo": "bar", "n": 1.0}},
		"StringToObjectNull":    {tr: conv("object", "json"), in: `null`, want: map[string]any(nil)},
		"StringToObjectInvalid": {tr: conv("object", "json"), in: `[1]`,
			err: "convert transform could not resolve: json: cannot unmarshal array into Go value of type map[string]interface {}"},
		"StringToList":       {tr: conv("array", "json"), in: `["foo", "bar", 3]`, want: []any{"foo", "bar", 3.0}},
		"StringToListSyntax": {tr: conv("array", "json"), in: `[`, err: "convert transform could not resolve: unexpected end of JSON input"},
		"StringToObjectWithoutFormat": {tr: conv("object"), in: `{}`,
			err: "convert transform could not resolve: conversion from string to object is not supported with format none"},
		"InputTypeNotSupported": {tr: conv("string"), in: map[string]any{"a": "b"},
			err: "convert transform could not resolve: invalid input type map[string]interface {}"},
		"ListInputNotSupported": {tr: conv("array"), in: []any{"a"},
			err: "convert transform could not resolve: invalid input type []interface {}"},
		"NilInput": {tr: conv("string"), in: nil, err: "convert transform could not resolve: invalid input type <nil>"},
		"ConversionPairFormatNotSupported": {tr: conv("string", "quantity"), in: int64(100),
			err: "convert transform could not resolve: conversion from int64 to string is not supported with format quantity"},
		"IntToFloatQuantity": {tr: conv("float64", "quantity"), in: int64(1),
			err: "convert transform could not resolve: conversion from int64 to float64 is not supported with format quantity"},
		"InvalidToType": {tr: conv("[]int"), in: "[64]", invalid: true, field: "convert.toType",
			err: "convert.toType: Invalid value: \"[]int\": invalid type"},
		"InvalidFormat": {tr: conv("int", "wrong"), in: "1", invalid: true, field: "convert.format",
			err: "convert.format: Invalid value: \"wrong\": invalid format"},
		"EmptyFormat": {tr: conv("int", ""), in: "1", invalid: true, field: "convert.format",
			err: "convert.format: Invalid value: \"\": invalid format"},
		"Float64ToInt64":  {tr: conv("int64"), in: 1.1, want: int64(1)},
		"Float64ToString": {tr: conv("string"), in: 1e21, want: "1000000000000000000000"},
		"Float64ToBool":   {tr: conv("bool"), in: 1.0, want: true},
		"Int64ToString":   {tr: conv("string"), in: int64(-42), want: "-42"},
		"Int64ToBoolOne":  {tr: conv("bool"), in: int64(1), want: true},
		"Int64ToBoolTwo":  {tr: conv("bool"), in: int64(2), want: false},
		"Int64ToFloat64":  {tr: conv("float64"), in: int64(3), want: 3.0},
		"BoolToString":    {tr: conv("string"), in: false, want: "false"},
		"BoolToInt":       {tr: conv("int"), in: true, want: int64(1)},
		"BoolToFloat64":   {tr: conv("float64"), in: true, want: 1.0},
		"NoConfig": {tr: `{"type":"convert"}`, in: "1", invalid: true, field: "convert",
			err: "convert: Required value: given transform type convert requires configuration"},
	})
}

func TestTransformType(t *testing.T) {
	runTransformCases(t, map[string]transformCase{
		"Unknown": {tr: `{"type":"bogus"}`, in: "x", invalid: true, field: "type",
			err: "type: Invalid value: \"bogus\": unknown transform type"},
		"Missing": {tr: `{"map":{"a":"b"}}`, in: "a", invalid: true, field: "type",
			err: "type: Invalid value: \"\": unknown transform type"},
		"NotAString": {tr: `{"type":1}`, in: "a", invalid: true, field: "type",
			err: "type: must be a string, not a number"},
		// Fields of other transform types are still read.
		"OtherFieldsRead": {tr: `{"type":"map","map":{"a":"b"},"math":"x"}`, in: "a", invalid: true, field: "math",
			err: "math: must be an object, not a string"},
		"UnknownFieldsIgnored": {tr: `{"type":"map","map":{"a":"b"},"extra":1}`, in: "a", want: "b"},
	})
}

func TestTransformAll(t *testing.T) {
	list := func(js string) []any { return jsonVal(t, js).([]any) }
	cases := map[string]struct {
		ts    string
		in    any
		want  any
		at    int
		err   string
		field fieldpath.Path
	}{
		"Empty": {ts: `[]`, in: "x", want: "x", at: -1},
		"Chain": {ts: `[{"type":"convert","convert":{"toType":"int"}},
			{"type":"math","math":{"type":"Multiply","multiply":3}},
			{"type":"string","string":{"type":"Format","fmt":"%d-replicas"}}]`, in: "4", want: "12-replicas", at: -1},
		"MapThenMathIsFloat": {ts: `[{"type":"map","map":{"small":1}},{"type":"math","math":{"type":"Multiply","multiply":2}}]`,
			in: "small", want: 2.0, at: -1},
		"FailsAtIndex": {ts: `[{"type":"string","string":{"type":"Format","fmt":"%v"}},{"type":"math","math":{"type":"Multiply","multiply":2}}]`,
			in: int64(1), at: 1,
			err: "transform at index 1 returned error: math transform could not resolve: input is required to be a number for math transformer, got string"},
		// The function checks its whole input first.
		"InvalidBeatsRuntime": {ts: `[{"type":"math","math":{"type":"Multiply","multiply":2}},{"type":"map","map":{}}]`,
			in: "x", at: 1, field: fieldpath.Path{fieldpath.Field("map")},
			err: "transform at index 1 is invalid: map: Required value: at least one pair must be specified if a map transform is specified"},
		"NotAnObject": {ts: `[{"type":"map","map":{"a":"b"}}, "x"]`, in: "a", at: 1,
			err: "transform at index 1 is invalid: a transform must be an object, not a string"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, at, err := TransformAll(list(tc.ts), tc.in)
			if at != tc.at {
				t.Errorf("index = %d, want %d", at, tc.at)
			}
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error\n got  %v\n want %q", err, tc.err)
				}
				var te *TransformError
				if !errors.As(err, &te) {
					t.Fatalf("error does not wrap a *TransformError")
				}
				if !te.Field.Equal(tc.field) {
					t.Errorf("Field = %q, want %q", te.Field, tc.field)
				}
				return
			}
			if err != nil || !same(got, tc.want) {
				t.Errorf("TransformAll = %#v, %v; want %#v", got, err, tc.want)
			}
		})
	}
}

// TestTransformDoesNotModifyItsInput: transforms and inputs are read, never
// written.
func TestTransformDoesNotModifyItsInput(t *testing.T) {
	tr := jsonObj(t, `{"type":"map","map":{"a":{"x":[1]}}}`)
	before := paved.DeepCopy(tr)
	out, err := Transform(tr, "a")
	if err != nil {
		t.Fatal(err)
	}
	out.(map[string]any)["x"].([]any)[0] = "changed"
	if !same(tr, before) {
		t.Errorf("transform modified: %#v", tr)
	}
	if s := fmt.Sprint(tr); !strings.Contains(s, "[1]") {
		t.Errorf("transform shares memory with its result: %s", s)
	}
}
