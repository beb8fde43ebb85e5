package gotemplating

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRunCostlyFunctions (issue 35): sprig's functions that burn CPU per
// call (key and certificate generation, bcrypt, random bytes, long
// ranges), called in loops, and a huge toYaml of the run's data, stop at
// the run's deadline with a limit, within a second of it: the budget was
// checked only every 64 steps (a loop of genPrivateKey "rsa" ran 57 s,
// of "dsa" 78 s, of bcrypt 5 s). DSA, by the same path, is left out: its
// abandoned call would burn a core for a minute after the test.
func TestRunCostlyFunctions(t *testing.T) {
	const budget = 500 * time.Millisecond // a share of DefaultTimeout, as a pipeline's later steps get
	for _, tpl := range []string{
		`{{ range until 1000 }}{{ genPrivateKey "rsa" }}{{ end }}`,
		`{{ range until 1000 }}{{ genCA "x" 365 | toString | len }}{{ end }}`,
		`{{ range until 1000 }}{{ $ca := genCA "x" 365 }}{{ genSignedCert "y" nil nil 365 $ca | toString | len }}{{ end }}`,
		`{{ range until 1000 }}{{ bcrypt "secret" }}{{ end }}`,
		`{{ range until 1000 }}{{ htpasswd "user" "secret" }}{{ end }}`,
		`{{ range until 100000 }}{{ randBytes 100000 | len }}{{ end }}`,
		`{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}`,
		`{{ range until 100000 }}{{ toYaml $ | len }}{{ end }}`,
	} {
		start := time.Now()
		rsp := Run(context.Background(), Request{Input: inline(tpl), Data: xrData(), Deadline: start.Add(budget)})
		d := time.Since(start)
		t.Logf("%s: %s: %s", tpl, d.Round(time.Millisecond), rsp.Fatal)
		if !rsp.Limit || !strings.Contains(rsp.Fatal, "crd-lsp") {
			t.Errorf("%s: not stopped by a limit: %q", tpl, rsp.Fatal)
		}
		if d > budget+time.Second {
			t.Errorf("%s: took %s, its deadline was %s", tpl, d.Round(time.Millisecond), budget)
		}
	}
}
