// This file is the recorder: run by hand, it sends every case of a
// function's tables to the real function, built from its public source,
// and writes the answers into the tables.
//
//	CRD_LSP_RECORD='function-kcl@v0.12.2=/path/to/function-kcl' \
//	  go test ./internal/functions/conformance -run TestRecord -v
//
// The binary is started as crossplane render's Development runtime runs a
// local function (--insecure --address 127.0.0.1:PORT); words after the
// path, separated by spaces, are extra arguments. Several functions are
// separated by commas.

package conformance

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/status"

	"github.com/crd-lsp/crd-lsp/internal/functions"
)

func TestRecord(t *testing.T) {
	spec := os.Getenv("CRD_LSP_RECORD")
	if spec == "" {
		t.Skip("CRD_LSP_RECORD names no function to record (NAME@VERSION=BINARY[ ARG…])")
	}
	paths, err := Tables(filepath.Join("..", "..", "functions"))
	if err != nil {
		t.Fatal(err)
	}
	for _, one := range strings.Split(spec, ",") {
		name, bin, ok := strings.Cut(strings.TrimSpace(one), "=")
		fn, version, ok2 := strings.Cut(name, "@")
		if !ok || !ok2 {
			t.Fatalf("CRD_LSP_RECORD: %q is not NAME@VERSION=BINARY", one)
		}
		args := strings.Fields(bin)
		found := false
		for _, p := range paths {
			tb, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if tb.Function != fn || tb.Version != version {
				continue
			}
			found = true
			t.Run(fn+"@"+version, func(t *testing.T) { record(t, tb, args[0], args[1:]) })
		}
		if !found {
			t.Errorf("no table for %s %s below internal/functions/*/testdata/conformance", fn, version)
		}
	}
}

func record(t *testing.T, tb *Table, bin string, args []string) {
	reg := functions.New(functions.Config{
		Executables: map[string]functions.Executable{tb.Function: {Path: bin, Args: args}},
		Logf:        t.Logf,
	})
	defer reg.Close()
	run, _ := reg.Route(functions.Step{Function: tb.Function})
	if run == nil {
		t.Fatal("the registry does not run the function")
	}
	answers := map[string]Answer{}
	for _, c := range tb.Cases {
		a := Call(context.Background(), run, tb.Function, c)
		a.Error = callError(a)
		answers[c.Name] = a
		t.Logf("%s: fatal=%v error=%q calls=%d", c.Name, Answer2Case(a).Fatal(), a.Error, a.Calls)
	}
	if err := tb.Record(answers); err != nil {
		t.Fatal(err)
	}
}

// callError words a failed call without what differs between machines
// (the binary's path, its process's output): the function's own gRPC
// status, else the error.
func callError(a Answer) string {
	var ce *functions.CallError
	if errors.As(a.Err, &ce) {
		if st, ok := status.FromError(ce.Err); ok {
			return st.Code().String() + ": " + st.Message()
		}
	}
	return a.Error
}

// Answer2Case is a as a case's recorded answer.
func Answer2Case(a Answer) Case { return Case{Response: a.Response, Error: a.Error, Calls: a.Calls} }
