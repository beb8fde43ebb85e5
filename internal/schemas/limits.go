// This file bounds the API server's messages (long lists, long texts) and
// recognises its out-of-range number reports.

package schemas

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crd-lsp/crd-lsp/internal/yamlflow"
)

// Limits on what validation findings carry: the API server's messages
// repeat whatever the schema or the object holds (every enum value, the
// whole bad value), which an editor cannot show.
const (
	// maxMessage bounds an Error's message in bytes.
	maxMessage = 2048
	// maxQuoted bounds a value quoted inside a message, in bytes.
	maxQuoted = yamlflow.MaxQuoted
	// maxListed is how many supported values an enum message lists.
	maxListed = 20
)

// clipMessage cuts msg to maxMessage bytes (at a character boundary),
// saying how much was left out.
func clipMessage(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	cut := maxMessage - 40
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%s more bytes)", msg[:cut], thousands(len(msg)-cut))
}

// supportedValues shortens the API server's "supported values: "a", "b",
// …" list to its first maxListed values and a count of the rest.
func supportedValues(detail string) string {
	const head = "supported values: "
	i := strings.Index(detail, head)
	if i < 0 {
		return detail
	}
	values := strings.Split(detail[i+len(head):], ", ")
	if len(values) <= maxListed {
		return detail
	}
	return fmt.Sprintf("%s%s, … and %s more (%s in all)", detail[:i+len(head)], strings.Join(values[:maxListed], ", "),
		thousands(len(values)-maxListed), thousands(len(values)))
}

// thousands writes n with thousands separators (99,980).
func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// checkedRE is kube-openapi's second report of a number outside its
// format's range, made with a "<nil>" field: the path is in the detail.
var checkedRE = regexp.MustCompile(`^Checked value must be of type (.+) in (\S+)$`)

// checkedFormat recognises that report; it gives the field path it names
// (relative to the object validated, with fe.Field's own prefix) and the
// type.
func checkedFormat(fe *field.Error) (path, typ string, ok bool) {
	prefix, isNil := strings.CutSuffix(fe.Field, "<nil>")
	if !isNil {
		return "", "", false
	}
	m := checkedRE.FindStringSubmatch(strings.TrimSpace(fe.Detail))
	if m == nil {
		return "", "", false
	}
	return prefix + m[2], m[1], true
}
