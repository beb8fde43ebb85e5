// Package fuzztest runs a Go fuzz target's body on random mutations of its
// checked-in seed corpus for a bounded time, inside a plain `go test`.
//
// `go test -fuzz` is coverage-guided but needs an instrumented build of
// every package the target reaches (for internal/lsp, Kubernetes included:
// many minutes on a cold cache) and one `go test` per target. CI instead
// calls Mutate from an ordinary test: no extra build, a few seconds per
// target, the same bodies and corpus (testdata/fuzz/<target>/, Go's
// format, which a plain `go test` already runs as seeds). A failing input
// is printed as a corpus file to check in.
//
// Mutate runs when CI=true (for 2 s) or when CRD_LSP_FUZZTIME is a
// duration; otherwise it skips. It logs its random seed, and takes
// CRD_LSP_FUZZSEED to replay one. Test support only.
package fuzztest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// slow is how long one input may take: hostile input must not hang.
const slow = 10 * time.Second

// Duration is how long Mutate runs each target: CRD_LSP_FUZZTIME, else
// 2 s under CI=true, else 0 (skip).
func Duration() time.Duration {
	if v := os.Getenv("CRD_LSP_FUZZTIME"); v != "" {
		d, err := time.ParseDuration(v)
		if err == nil {
			return d
		}
	}
	if os.Getenv("CI") == "true" {
		return 2 * time.Second
	}
	return 0
}

// Mutate calls body — the function a fuzz target passes to f.Fuzz, taking
// *testing.T and then string, []byte, int, int32, int64, bool or float64
// arguments — on mutations of the corpus in testdata/fuzz/<target> for
// Duration(). Each call runs as a subtest; the first failure (or panic)
// stops the run and prints the input.
func Mutate(t *testing.T, target string, body any) {
	t.Helper()
	d := Duration()
	if d <= 0 {
		t.Skip("bounded fuzzing runs with CI=true or CRD_LSP_FUZZTIME=<duration>")
	}
	fn := reflect.ValueOf(body)
	ft := fn.Type()
	if ft.Kind() != reflect.Func || ft.NumIn() < 1 || ft.In(0) != reflect.TypeOf(t) {
		t.Fatalf("body must be func(*testing.T, ...), not %s", ft)
	}
	seeds, err := readCorpus(filepath.Join("testdata", "fuzz", target), ft)
	if err != nil {
		t.Fatal(err)
	}
	if len(seeds) == 0 {
		t.Fatalf("no seed corpus in testdata/fuzz/%s", target)
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("CRD_LSP_FUZZSEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("CRD_LSP_FUZZSEED=%q: %v", v, err)
		}
		seed = n
	}
	// (Logged first: a failure, a panic or a test timeout shows it.)
	t.Logf("seed %d (CRD_LSP_FUZZSEED=%d replays these mutations)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 16))
	deadline := time.Now().Add(d)
	runs := 0
	for ; time.Now().Before(deadline); runs++ {
		args := mutate(rng, seeds[rng.IntN(len(seeds))], seeds)
		began := time.Now()
		ok := t.Run(fmt.Sprint(runs), func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v", r)
				}
			}()
			fn.Call(append([]reflect.Value{reflect.ValueOf(t)}, args...))
		})
		if !ok {
			t.Fatalf("input (save it as testdata/fuzz/%s/<name>):\n%s", target, format(args))
		}
		if took := time.Since(began); took > slow {
			t.Errorf("one input took %v (more than %v):\n%.2000s", took, slow, format(args))
		}
	}
	t.Logf("%d mutations of %d seeds in %v", runs, len(seeds), d)
}

// readCorpus reads Go's corpus files ("go test fuzz v1", then one typed
// value per line) whose values fit the body's argument types.
func readCorpus(dir string, ft reflect.Type) ([][]reflect.Value, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out [][]reflect.Value
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) == 0 || lines[0] != "go test fuzz v1" || len(lines)-1 != ft.NumIn()-1 {
			return nil, fmt.Errorf("%s: not a corpus file for %s", e.Name(), ft)
		}
		var args []reflect.Value
		for i, l := range lines[1:] {
			v, err := parseValue(l, ft.In(i+1))
			if err != nil {
				return nil, fmt.Errorf("%s: %v", e.Name(), err)
			}
			args = append(args, v)
		}
		out = append(out, args)
	}
	return out, nil
}

func parseValue(line string, want reflect.Type) (reflect.Value, error) {
	open := strings.IndexByte(line, '(')
	if open < 0 || !strings.HasSuffix(line, ")") {
		return reflect.Value{}, fmt.Errorf("malformed line %q", line)
	}
	typ, lit := line[:open], line[open+1:len(line)-1]
	var v any
	var err error
	switch typ {
	case "string", "[]byte":
		var s string
		s, err = strconv.Unquote(lit)
		v = s
		if typ == "[]byte" {
			v = []byte(s)
		}
	case "int":
		var n int64
		n, err = strconv.ParseInt(lit, 0, 64)
		v = int(n)
	case "int32":
		var n int64
		n, err = strconv.ParseInt(lit, 0, 32)
		v = int32(n)
	case "int64":
		v, err = strconv.ParseInt(lit, 0, 64)
	case "bool":
		v, err = strconv.ParseBool(lit)
	case "float64":
		v, err = strconv.ParseFloat(lit, 64)
	default:
		return reflect.Value{}, fmt.Errorf("unsupported type %s", typ)
	}
	if err != nil {
		return reflect.Value{}, fmt.Errorf("%q: %v", line, err)
	}
	rv := reflect.ValueOf(v)
	if rv.Type() != want {
		return reflect.Value{}, fmt.Errorf("%q is a %s, the target wants %s", line, rv.Type(), want)
	}
	return rv, nil
}

// tokens are spliced into byte inputs: what the parsers under test treat
// specially.
var tokens = []string{"\n", "\r\n", "---\n", "...\n", ": ", "- ", "{", "}", "[", "]", `"`, "'", "\\", "&a ", "*a", "<<: ", "#", "\t", "\ufeff", "é", "😀",
	"%[1]s", "%1000000d", "[*]", ".", "Content-Length: ", "\r\n\r\n", `{"jsonrpc":"2.0",`, `"id":`, `"method":`, "null", "9223372036854775807", "-1", "0"}

// mutate copies seed and changes one to three of its values: bytes
// inserted, deleted, duplicated or flipped, tokens or parts of other
// seeds spliced in; numbers moved to edges; booleans flipped.
func mutate(rng *rand.Rand, seed []reflect.Value, all [][]reflect.Value) []reflect.Value {
	out := append([]reflect.Value(nil), seed...)
	for n := 1 + rng.IntN(3); n > 0; n-- {
		i := rng.IntN(len(out))
		switch v := out[i].Interface().(type) {
		case string:
			out[i] = reflect.ValueOf(string(mutateBytes(rng, []byte(v), all)))
		case []byte:
			out[i] = reflect.ValueOf(mutateBytes(rng, append([]byte(nil), v...), all))
		case int:
			out[i] = reflect.ValueOf([]int{0, -1, 1, 1 << 31, -1 << 63, v + 1, v * 2}[rng.IntN(7)])
		case int32:
			out[i] = reflect.ValueOf([]int32{0, -1, 1, 1<<31 - 1, v + 1}[rng.IntN(5)])
		case int64:
			out[i] = reflect.ValueOf([]int64{0, -1, 1, 1<<63 - 1, -1 << 63, v + 1}[rng.IntN(6)])
		case bool:
			out[i] = reflect.ValueOf(!v)
		case float64:
			out[i] = reflect.ValueOf([]float64{0, -1, 1e300, v / 3, v * 1e10}[rng.IntN(5)])
		}
	}
	return out
}

func mutateBytes(rng *rand.Rand, b []byte, all [][]reflect.Value) []byte {
	pos := 0
	if len(b) > 0 {
		pos = rng.IntN(len(b) + 1)
	}
	switch rng.IntN(6) {
	case 0: // insert a token
		return append(b[:pos:pos], append([]byte(tokens[rng.IntN(len(tokens))]), b[pos:]...)...)
	case 1: // delete a run
		end := min(len(b), pos+1+rng.IntN(16))
		return append(b[:pos:pos], b[end:]...)
	case 2: // duplicate a run
		end := min(len(b), pos+1+rng.IntN(64))
		return append(b[:end:end], append(append([]byte(nil), b[pos:end]...), b[end:]...)...)
	case 3: // flip a byte
		if pos < len(b) {
			b[pos] ^= byte(1 << rng.IntN(8))
		}
		return b
	case 4: // splice part of another seed's value
		other := all[rng.IntN(len(all))]
		v := other[rng.IntN(len(other))].Interface()
		var src []byte
		switch x := v.(type) {
		case string:
			src = []byte(x)
		case []byte:
			src = x
		}
		if len(src) == 0 {
			return b
		}
		from := rng.IntN(len(src))
		to := min(len(src), from+1+rng.IntN(256))
		return append(b[:pos:pos], append(append([]byte(nil), src[from:to]...), b[pos:]...)...)
	default: // repeat the whole value (growth)
		if len(b) < 1<<16 {
			return append(b, b...)
		}
		return b
	}
}

func format(args []reflect.Value) string {
	lines := []string{"go test fuzz v1"}
	for _, a := range args {
		switch v := a.Interface().(type) {
		case string:
			lines = append(lines, "string("+strconv.Quote(v)+")")
		case []byte:
			lines = append(lines, "[]byte("+strconv.Quote(string(v))+")")
		default:
			lines = append(lines, fmt.Sprintf("%s(%v)", a.Type(), v))
		}
	}
	return strings.Join(lines, "\n")
}
