package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// streamWorkspace writes a workspace whose findings spread over many
// files and over the documents of one long file: each ConfigMap's data
// value on line want[i] is an integer, where a string belongs.
func streamWorkspace(t *testing.T) (dir string, long string, want []int) {
	dir = t.TempDir()
	var b strings.Builder
	line := 1
	for i := 0; i < 300; i++ {
		switch {
		case i%7 == 3: // a duplicate key: its message names a line of the file
			fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m%d\n  name: n%d\ndata: {}\n", i, i)
			want = append(want, line+5)
		case i%11 == 5: // a syntax error
			fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m%d\ndata: [\n", i)
			want = append(want, line+5)
			line--
		default:
			fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m%d\ndata:\n  k: %d\n", i, i)
			want = append(want, line+6)
		}
		line += 7
	}
	long = filepath.Join(dir, "zz-long.yaml") // after the services
	if err := os.WriteFile(long, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		doc := fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata:\n  name: s%d\nspec:\n  ports:\n    - port: p%d\n", i, i)
		if i%5 == 0 {
			doc = "# clean\n" + strings.Replace(doc, ": p", ": 8", 1)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("svc-%02d.yaml", i)), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, long, want
}

// runCheckWith runs check with jobs workers, files cut into parts from
// partBytes bytes (1: one document per part).
func runCheckWith(t *testing.T, jobs, partBytes int, args ...string) (int, string) {
	t.Helper()
	oldJobs, oldPart := checkJobs, checkPartBytes
	checkJobs, checkPartBytes = jobs, partBytes
	defer func() { checkJobs, checkPartBytes = oldJobs, oldPart }()
	code, out, errOut := runCmd(t, "", append([]string{"check"}, args...)...)
	if code == 2 {
		t.Fatalf("check %v: exit 2: %s", args, errOut)
	}
	return code, out
}

// TestCheckParallelIsSequential: a parallel run, its long file cut into
// one part per document, prints exactly what one worker checking each
// file whole prints, in text and in JSON, run after run.
func TestCheckParallelIsSequential(t *testing.T) {
	dir, _, want := streamWorkspace(t)
	for _, output := range []string{"text", "json"} {
		seqCode, seq := runCheckWith(t, 1, 1<<30, "--output", output, dir)
		if seqCode != 1 || strings.Count(seq, "must be of type string") < 200 {
			t.Fatalf("%s: sequential run: exit %d, output:\n%s", output, seqCode, seq)
		}
		if output == "text" && !strings.HasSuffix(seq, fmt.Sprintf("41 files checked: %d errors, 0 warnings, 0 info\n", len(want)+32)) {
			t.Errorf("sequential summary: %s", seq[strings.LastIndex(seq[:len(seq)-1], "\n")+1:])
		}
		for run := 0; run < 3; run++ {
			for _, jobs := range []int{2, 8} {
				code, par := runCheckWith(t, jobs, 1, "--output", output, dir)
				if code != seqCode || par != seq {
					t.Fatalf("%s, %d workers, run %d: exit %d (sequential %d), output differs:\n%s\nsequential:\n%s", output, jobs, run, code, seqCode, par, seq)
				}
			}
		}
	}
}

var findingLine = regexp.MustCompile(`(?m)^([^:]+):(\d+):\d+: `)

// TestCheckLongFileInDocumentOrder: the findings of a file whose documents
// are checked on several workers come in document order, on the lines
// where they are.
func TestCheckLongFileInDocumentOrder(t *testing.T) {
	_, long, want := streamWorkspace(t)
	_, out := runCheckWith(t, 4, 1, long)
	var got []int
	for _, m := range findingLine.FindAllStringSubmatch(out, -1) {
		if m[1] != long {
			t.Fatalf("finding in %s: %s", m[1], out)
		}
		n, _ := strconv.Atoi(m[2])
		got = append(got, n)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("finding lines\n got %v\nwant %v\noutput:\n%s", got, want, out)
	}
	if !strings.Contains(out, fmt.Sprintf(`mapping key "name" already defined at line %d`, want[3]-1)) {
		t.Errorf("duplicate key message does not name the file's line:\n%s", out)
	}
}

// firstWrite records how many parts had been diagnosed when check first
// wrote to stdout.
type firstWrite struct {
	bytes.Buffer
	at int64
}

func (w *firstWrite) Write(b []byte) (int, error) {
	if w.Len() == 0 {
		w.at = partsChecked.Load()
	}
	return w.Buffer.Write(b)
}

// TestCheckStreams: the first findings (svc-01.yaml's, svc-00.yaml has
// none) are written while at most those two files' parts and a window of
// parts (2 x workers + 2) have been diagnosed, not after every file.
func TestCheckStreams(t *testing.T) {
	dir, _, _ := streamWorkspace(t)
	oldJobs, oldPart := checkJobs, checkPartBytes
	checkJobs, checkPartBytes = 2, 1
	defer func() { checkJobs, checkPartBytes = oldJobs, oldPart }()
	before := partsChecked.Load()
	var out firstWrite
	var errb bytes.Buffer
	if code := run([]string{"check", dir}, strings.NewReader(""), &out, &errb); code != 1 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	total := partsChecked.Load() - before
	if first := out.at - before; first > 2+2*2+2 || total < 300 {
		t.Fatalf("first output after %d of %d parts were diagnosed", first, total)
	}
}
