package patchandtransform

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// reasonString is a TransformError's structured reason, for comparison.
func reasonString(e *TransformError) string {
	s := fmt.Sprintf("%d %s", e.Reason, e.Field)
	if e.Value != "" {
		s += " value=" + e.Value
	}
	if e.Of != "" {
		s += " of=" + e.Of
	}
	return s
}

// TestValidateTransform: the one decider of transform validity returns
// every reason in structured form, those of the input's decoding first;
// Transform reports the first of them, in the function's words.
func TestValidateTransform(t *testing.T) {
	for name, tc := range map[string]struct {
		tr      string
		classic bool
		want    []string // reasonString of each reason
		first   string   // Transform's error ("" to skip: a classic transform)
	}{
		"Valid": {tr: `{"type":"math","math":{"type":"Multiply","multiply":2}}`},
		"EveryBadPattern": {
			tr: `{"type":"match","match":{"patterns":[{"type":"regexp","regexp":"("},{"type":"glob"},{"literal":"a"},{},{"type":"regexp"}]}}`,
			want: []string{
				fmt.Sprintf("%d match.patterns[0].regexp value=(", BadRegexp),
				fmt.Sprintf("%d match.patterns[1].type value=glob", UnknownType),
				fmt.Sprintf("%d match.patterns[3].literal of=literal", MissingField),
				fmt.Sprintf("%d match.patterns[4].regexp of=regexp", MissingField),
			},
			first: "match.patterns[0].regexp: Invalid value: \"(\": invalid regexp: error parsing regexp: missing closing ): `(`",
		},
		"DecodingFirstThenZeroValues": {
			tr: `{"type":"map","map":"x","math":{"multiply":"2"}}`,
			want: []string{
				fmt.Sprintf("%d math.multiply", WrongType),
				fmt.Sprintf("%d map", WrongType),
				fmt.Sprintf("%d map", EmptyMap),
			},
			first: "math.multiply: must be an integer, not a string",
		},
		"WrongTypedOptionalIsNotMissing": {
			tr:    `{"type":"string","string":{"type":"Format","fmt":5}}`,
			want:  []string{fmt.Sprintf("%d string.fmt", WrongType)},
			first: "string.fmt: must be a string, not a number",
		},
		"MathTypeRequired": {
			tr:    `{"type":"math","math":{"multiply":2}}`,
			want:  []string{fmt.Sprintf("%d math.type of=math", MissingField)},
			first: "math.type: Required value: math transform type is required",
		},
		"ClassicMathTypeDefaults": {tr: `{"type":"math","math":{"multiply":2}}`, classic: true},
		"ClassicStringTypeDefaults": {
			tr:      `{"type":"string","string":{}}`,
			classic: true,
			want:    []string{fmt.Sprintf("%d string.fmt of=Format", MissingField)},
		},
		"RegexpMatch": {
			tr:    `{"type":"string","string":{"type":"Regexp","regexp":{}}}`,
			want:  []string{fmt.Sprintf("%d string.regexp.match of=Regexp", MissingField)},
			first: "string.regexp.match: Required value: regexp transform requires a match",
		},
		"Unreadable": {
			tr:    `{"type":"math","math":{"type":"Multiply","multiply":2,"clampMin":9223372036854775296}}`,
			want:  []string{fmt.Sprintf("%d math.clampMin value=9223372036854775296", Unreadable)},
			first: "math.clampMin: cannot be read: 9223372036854775296 reaches the function as 9223372036854775808 (a step's input is a protobuf Struct, whose numbers are float64), which does not fit an int64",
		},
		"LargestReadable": {tr: `{"type":"math","math":{"type":"Multiply","multiply":9223372036854775295}}`},
		"ClassicIsExact":  {tr: `{"type":"math","math":{"type":"Multiply","multiply":9223372036854775807}}`, classic: true},
		"ConvertBadFormat": {
			tr:    `{"type":"convert","convert":{"toType":"int","format":"xml"}}`,
			want:  []string{fmt.Sprintf("%d convert.format value=xml", BadValue)},
			first: `convert.format: Invalid value: "xml": invalid format`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			errs := ValidateTransform(jsonObj(t, tc.tr), tc.classic)
			var got []string
			for _, e := range errs {
				if !e.Invalid {
					t.Errorf("%v: not Invalid", e)
				}
				got = append(got, reasonString(e))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("reasons\n got  %q\n want %q", got, tc.want)
			}
			if tc.classic {
				return
			}
			_, err := Transform(jsonObj(t, tc.tr), "a")
			var te *TransformError
			if tc.first == "" {
				if errors.As(err, &te) && te.Invalid {
					t.Errorf("valid transform: Transform says invalid: %v", err)
				}
				return
			}
			if !errors.As(err, &te) || err.Error() != tc.first || reasonString(te) != got[0] {
				t.Errorf("Transform: %v, want the first reason %q", err, tc.first)
			}
		})
	}
}

// TestValidateTransformNotObject: anything in a transform's place that is
// not an object is a wrong type, and has no type.
func TestValidateTransformNotObject(t *testing.T) {
	errs := ValidateTransform("x", false)
	if len(errs) != 2 || errs[0].Reason != WrongType || errs[0].Field != nil || errs[0].Error() != "a transform must be an object, not a string" ||
		errs[1].Reason != UnknownType || errs[1].Field.String() != "type" || errs[1].Value != "" {
		t.Fatalf("%v", errs)
	}
	if _, at, err := TransformAll([]any{"x"}, "a"); at != 0 || err == nil || err.Error() != "transform at index 0 is invalid: a transform must be an object, not a string" {
		t.Errorf("TransformAll: %d %v", at, err)
	}
}
