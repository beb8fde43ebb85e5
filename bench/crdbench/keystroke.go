package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/crd-lsp/crd-lsp/bench/lspclient"
	"github.com/crd-lsp/crd-lsp/bench/workload"
)

// keystroke opens the 300-document Bucket file, applies edits one at a
// time (each flips one value, alternately making the file invalid and
// valid again) and measures, for each, the time from sending didChange to
// receiving the diagnostics published for it, checking that they are
// right: after an invalidating edit exactly one error, on the edited line;
// after a restoring one, none.
//
// For a server that publishes versions (crd-lsp), the publish for the
// edit's version is the one measured, and it must be right. For one that
// does not (yaml-language-server 2.0.0), the first publish that is right
// is measured and every other publish in between counts as wrong.
func keystroke(args []string) error {
	fs := flag.NewFlagSet("keystroke", flag.ExitOnError)
	work := fs.String("work", "", "workload folder (crdbench gen)")
	name := fs.String("name", "crd-lsp", "server name in the report")
	yamlls := fs.Bool("yamlls", false, "the server is yaml-language-server: configure yaml.schemas with the Bucket CRD's JSON Schema")
	edits := fs.Int("edits", 200, "measured edits")
	warmup := fs.Int("warmup", 10, "edits before measuring (checked, not timed)")
	timeout := fs.Duration("timeout", 30*time.Second, "longest wait for one edit's diagnostics")
	_ = fs.Parse(args)
	argv := fs.Args()
	if len(argv) == 0 {
		return fmt.Errorf("no server command after --")
	}
	m, err := workload.ReadManifest(*work)
	if err != nil {
		return err
	}
	ks := m.Keystroke
	if *warmup+*edits > len(ks.Edits) {
		return fmt.Errorf("only %d edits generated", len(ks.Edits))
	}
	path := filepath.Join(ks.Dir, ks.File)
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	settings := map[string]any{"crdLsp": map[string]any{}}
	var initOptions any = map[string]any{}
	if *yamlls {
		// As a user would configure it: the kind's JSON Schema (the same
		// file kubeconform reads) mapped to the file by yaml.schemas; the
		// schema store is off (it would fetch a catalogue over the network,
		// which this machine has not), validation on, all else default.
		// The pattern is the file's absolute path: yaml-language-server
		// matches yaml.schemas globs with picomatch without dot: true, so
		// "**/buckets.yaml" never matches below a hidden folder such as
		// ~/.cache, where the workloads live.
		settings = map[string]any{
			"yaml": map[string]any{
				"validate":           true,
				"schemaStore":        map[string]any{"enable": false},
				"kubernetesCRDStore": map[string]any{"enable": false},
				"schemas":            map[string]any{fileURI(ks.JSONSchema): []string{path}},
			},
			"http":   map[string]any{},
			"[yaml]": map[string]any{},
			"editor": map[string]any{},
		}
		initOptions = nil
	}
	s, err := startSession(argv, ks.Dir, settings, initOptions)
	if err != nil {
		return err
	}
	defer s.stop()
	if *yamlls {
		if err := s.srv.Notify("workspace/didChangeConfiguration", map[string]any{"settings": settings}); err != nil {
			return err
		}
	} else if _, err := s.awaitLog("schemas loaded", 120*time.Second); err != nil {
		return err
	}
	uri := fileURI(path)
	diags := s.channel(uri)
	if err := s.open(uri, string(text)); err != nil {
		return err
	}
	lines := strings.Split(string(text), "\n")
	version := 1
	// The file as opened is valid: wait until that is published.
	if _, _, err := awaitRight(diags, version, nil, *timeout); err != nil {
		return fmt.Errorf("after opening: %w", err)
	}
	var lat []time.Duration
	wrong := 0
	var cpu0 lspclient.Proc
	for i := 0; i < *warmup+*edits; i++ {
		if i == *warmup {
			cpu0 = lspclient.ReadProc(s.srv.Pid())
		}
		e := ks.Edits[i]
		line := lines[e.Line]
		lines[e.Line] = line[:e.Start] + e.Text + line[e.End:]
		version++
		sent := time.Now()
		err := s.srv.Notify("textDocument/didChange", map[string]any{
			"textDocument": map[string]any{"uri": uri, "version": version},
			"contentChanges": []any{map[string]any{
				"range": map[string]any{"start": map[string]any{"line": e.Line, "character": e.Start}, "end": map[string]any{"line": e.Line, "character": e.End}},
				"text":  e.Text,
			}},
		})
		if err != nil {
			return err
		}
		p, bad, err := awaitRight(diags, version, &e, *timeout)
		if err != nil {
			return fmt.Errorf("edit %d (line %d → %q): %w", i, e.Line+1, e.Text, err)
		}
		if i >= *warmup {
			lat = append(lat, p.at.Sub(sent))
			wrong += bad
		}
	}
	cpu1 := lspclient.ReadProc(s.srv.Pid())
	perEdit := (cpu1.CPU - cpu0.CPU) / time.Duration(*edits)
	fmt.Printf("keystroke %-22s %d docs, %d lines, %d edits: p50 %s  p99 %s  mean %s  max %s  server CPU %s/edit  RSS %s  wrong publishes %d  (load %s)\n",
		*name, ks.Docs, ks.Lines, *edits, ms(percentile(lat, 50)), ms(percentile(lat, 99)), ms(mean(lat)), ms(percentile(lat, 100)),
		ms(perEdit), mib(cpu1.RSS), wrong, loadavg())
	return nil
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

// awaitRight waits for the publish of version that matches the state
// after edit e (nil: the valid file as opened). A versioned publish of the
// version is taken whatever it says (wrong = 1 when it is not right, said
// on stderr); a
// versionless one is taken only when right, others counting as wrong.
// Versioned publishes of older versions are skipped.
func awaitRight(ch <-chan publish, version int, e *workload.Edit, timeout time.Duration) (publish, int, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	wrong := 0
	var last publish
	for {
		select {
		case p, ok := <-ch:
			if !ok {
				return p, wrong, fmt.Errorf("server ended")
			}
			last = p
			if p.Version != nil && *p.Version < version {
				continue
			}
			why := judge(p, e)
			if p.Version != nil {
				if why != "" {
					fmt.Fprintf(os.Stderr, "wrong diagnostics for version %d: %s\n", version, why)
					return p, 1, nil
				}
				return p, 0, nil
			}
			if why == "" {
				return p, wrong, nil
			}
			wrong++
		case <-t.C:
			return last, wrong, fmt.Errorf("no right diagnostics within %s (last: %v)", timeout, last.Diagnostics)
		}
	}
}

// judge says what is wrong with a publish after edit e ("" when right).
func judge(p publish, e *workload.Edit) string {
	if e == nil || !e.Invalid {
		if len(p.Diagnostics) != 0 {
			return fmt.Sprintf("want none, got %v", p.Diagnostics)
		}
		return ""
	}
	if len(p.Diagnostics) != 1 || p.Diagnostics[0].Severity != 1 || p.Diagnostics[0].Range.Start.Line != e.Line {
		return fmt.Sprintf("want one error on line %d, got %v", e.Line+1, p.Diagnostics)
	}
	return ""
}
