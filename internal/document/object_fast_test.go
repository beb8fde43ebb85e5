package document

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fastCases are documents where YAML 1.1 (what Object must follow) and
// yaml.v3 read scalars differently, or that carry what the fast path
// leaves to the slow one.
var fastCases = []string{
	"a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: n\ng: true\nh: Null\ni: ~\nj:\nk: null\n",
	"a: 0777\nb: 0x1F\nc: 1_000\nd: 1.0\ne: 1e3\nf: .5\ng: -0\nh: +5\ni: 12345678901234567890\nj: 0\nk: -12\nl: 7\n",
	"a: 2001-12-14\nb: 12:30:45\nc: .inf\nd: -.inf\ne: .nan\n",
	"a: ! yes\nb: !!str 5\nc: !!int \"5\"\nd: &x 5\ne: *x\n",
	"base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n",
	"1: a\ntrue: b\nyes: c\n\"q\": d\n'r': e\n",
	"a: |\n  text\nb: >\n  folded\n  lines\n",
	"a: \"esc\\t\\u00e9\\n\"\nb: 'it''s'\nc: plain text # comment\nd: multi\n  line\ne: \"\"\nf: ''\n",
	"list:\n- a\n- 1\n- {k: v}\n- [x, 'y']\n- \n",
	"plain",
	"- 1\n- two\n",
	"a: 10.0.0.0/16\nb: 10.0.0.1\nc: 1.2.3\nd: 1.2\ne: 1,2\nf: 2001-12-14 21:59:43.10 -5\ng: 2001-12-14t21:59:43.10-05:00\nh: 0x1F/2\ni: 1.2.3e4\nj: 0.0.0.0\nk: 1.5e3\nl: 0b101\nm: 100Mi\nn: 1:20\no: 9%\np: 2001-12-14/x\nq: 1__0\nr: 1..2\n",
	"a: <b>&amp;</b>\nb: \u2028x\nc: _x\nd: /path\ne: $ref\nf: (x)\ng: é\ni: ~x\nj: .x\nj2: .5\nj3: .Inf\nj4: .status[0]\nj5: .\nk: <<x\nl: yesno\nm: nope\n",
}

func TestFastObjectIsObject(t *testing.T) {
	for _, text := range fastCases {
		for _, d := range Parse("f.yaml", 0, []byte(text)).Docs {
			compareObject(t, text, d)
		}
	}
}

// TestFastObjectTakesAddresses: CIDRs and IP addresses, frequent in
// managed resources, are strings the fast path reads (issue 35: 4% of
// check's workload went to the general path for them).
func TestFastObjectTakesAddresses(t *testing.T) {
	text := "spec:\n  cidr: 10.0.0.0/16\n  ip: 10.0.0.1\n  blocks:\n  - 192.168.0.0/24\n"
	d := Parse("f.yaml", 0, []byte(text)).Docs[0]
	if !compareObject(t, text, d) {
		t.Fatalf("the fast path did not take %q", text)
	}
}

// TestFastObjectIsObjectOnCorpus: on every document of the corpus's
// compositions, workspaces and built-in schema sources that the fast
// path takes, it returns what the general path returns.
func TestFastObjectIsObjectOnCorpus(t *testing.T) {
	root := corpusDir(t)
	fast, all := 0, 0
	for _, sub := range []string{"compositions", "workspaces", "crds/crossplane", "crds/kubernetes", "crds/functions"} {
		err := filepath.WalkDir(filepath.Join(root, sub), func(p string, de os.DirEntry, err error) error {
			if err != nil || de.IsDir() || (!strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml")) {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, d := range Parse(p, 0, b).Docs {
				if len(d.Errors) > 0 || d.Root == nil {
					continue
				}
				all++
				if compareObject(t, p, d) {
					fast++
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if all == 0 || fast < all/2 {
		t.Fatalf("the fast path took %d of %d documents", fast, all)
	}
	t.Logf("the fast path took %d of %d documents", fast, all)
}

// compareObject checks the fast path against the general one on d,
// reporting whether the fast path took it.
func compareObject(t *testing.T, where string, d *Doc) bool {
	t.Helper()
	if len(d.Errors) > 0 || d.Root == nil {
		return false
	}
	fast, ok := d.fastObject()
	if !ok {
		return false
	}
	slow, err := d.slowObject()
	if err != nil || !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s, document %d: fast %#v, general %#v (%v)", where, d.Index, fast, slow, err)
	}
	return true
}

// FuzzFastObject: wherever the fast path takes a document, it returns
// what the general path returns.
func FuzzFastObject(f *testing.F) {
	for _, c := range fastCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 1<<12 {
			return
		}
		for _, d := range Parse("f.yaml", 0, []byte(text)).Docs {
			compareObject(t, "fuzz", d)
		}
	})
}
