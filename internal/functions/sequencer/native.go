// This file runs function-sequencer's creation sequencing in-process, as
// its fn.go RunFunction does at v0.6.0, so a render shows what the real
// function holds back.

package sequencer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/crd-lsp/crd-lsp/internal/functions"
)

// Native holds back, as function-sequencer v0.6.0 does (fn.go:101-250),
// each desired composed resource a rule sequences after one that is not
// yet desired and ready: for every entry after a rule's first that is
// not observed, each earlier entry's matching desired resources must all
// be ready (an earlier step, such as function-auto-ready, says so);
// otherwise the entry's matching desired resources that are not observed
// are dropped, with the function's Normal result. A cacheTTL that is not
// a duration, or an entry that is not a regular expression, fails the
// step with the function's words.
//
// What it does not do in-process: a rule with a CEL condition (the
// function evaluates it over the request with its own environment) and
// deletion sequencing's Usages (made only for observed resources, which
// a render has none of). A step with either passes the desired state
// through with a Normal result saying so.
func Native(_ context.Context, st functions.Step, req functions.NativeRequest) (functions.NativeResponse, error) {
	rsp := functions.NativeResponse{Desired: req.Desired, Context: req.Context}
	fatal := func(format string, a ...any) (functions.NativeResponse, error) {
		rsp.Results = append(rsp.Results, functions.Result{Severity: functions.SeverityFatal, Message: fmt.Sprintf(format, a...)})
		return rsp, nil
	}
	if err := decode(st.Input); err != nil {
		return fatal("cannot get Function input from *v1.RunFunctionRequest: %v", err)
	}
	in := st.Input
	if ttl, _ := in["cacheTTL"].(string); ttl != "" {
		if _, err := time.ParseDuration(ttl); err != nil {
			return fatal("cannot set cacheTTL: %v", err)
		}
	}
	rules, _ := in["rules"].([]any)
	for _, r := range rules {
		rm, _ := r.(map[string]any)
		if c, _ := rm["condition"].(string); c != "" {
			rsp.Results = append(rsp.Results, functions.Result{Severity: functions.SeverityNormal,
				Message: "crd-lsp did not run this step: a rule has a CEL condition, which only the function evaluates; nothing is held back"})
			return rsp, nil
		}
	}
	desired := make(map[string]functions.Resource, len(req.Desired.Resources))
	for n, res := range req.Desired.Resources {
		desired[n] = res
	}
	compositeReady := req.Desired.Composite.Ready
	for _, r := range rules {
		rm, _ := r.(map[string]any)
		seq := strings0(rm["sequence"])
		deleteOnly, _ := rm["deleteOnly"].(bool)
		reset, _ := in["resetCompositeReadiness"].(bool)
		for i, entry := range seq {
			if i == 0 {
				continue
			}
			if _, observed := req.Observed.Resources[entry]; observed {
				continue
			}
			if deleteOnly {
				continue
			}
			for _, before := range seq[:i] {
				beforeRE, err := strictRegexp(before)
				if err != nil {
					return fatal("cannot compile regex %s: %v", before, err)
				}
				n, ready := 0, 0
				for k, res := range desired {
					if beforeRE.MatchString(k) {
						n++
						if res.Ready == functions.ReadyTrue {
							ready++
						}
					}
				}
				currentRE, err := strictRegexp(entry)
				if err != nil {
					return fatal("cannot compile regex %s: %v", entry, err)
				}
				if n != 0 && n == ready {
					continue
				}
				msg := fmt.Sprintf("Delaying creation of resource(s) matching %q because %q does not exist yet", entry, before)
				if n > 0 {
					msg = fmt.Sprintf("Delaying creation of resource(s) matching %q because %q is not fully ready (%d of %d)", entry, before, ready, n)
				}
				rsp.Results = append(rsp.Results, functions.Result{Severity: functions.SeverityNormal, Message: msg})
				for k := range desired {
					if !currentRE.MatchString(k) {
						continue
					}
					if _, observed := req.Observed.Resources[k]; observed {
						continue
					}
					delete(desired, k)
					if reset {
						compositeReady = functions.ReadyFalse
					}
				}
				break
			}
		}
	}
	rsp.Desired = functions.State{Composite: req.Desired.Composite, Resources: desired}
	rsp.Desired.Composite.Ready = compositeReady
	return rsp, nil
}

// strictRegexp anchors a sequence entry as the function does
// (getStrictRegex): ^entry$ unless it starts with ^ or ends with $.
func strictRegexp(p string) (*regexp.Regexp, error) {
	if !strings.HasPrefix(p, "^") && !strings.HasSuffix(p, "$") {
		p = "^" + p + "$"
	}
	return regexp.Compile(p)
}

func strings0(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// input is function-sequencer v0.6.0's input type (input/v1beta1), for
// decoding as the function does: unknown fields and values of the wrong
// type are refused.
type input struct {
	APIVersion               string          `json:"apiVersion"`
	Kind                     string          `json:"kind"`
	Metadata                 json.RawMessage `json:"metadata"`
	CacheTTL                 string          `json:"cacheTTL"`
	EnableDeletionSequencing bool            `json:"enableDeletionSequencing"`
	ReplayDeletion           bool            `json:"replayDeletion"`
	ResetCompositeReadiness  bool            `json:"resetCompositeReadiness"`
	UsageVersion             string          `json:"usageVersion"`
	Rules                    []struct {
		Condition  string   `json:"condition"`
		DeleteOnly bool     `json:"deleteOnly"`
		Sequence   []string `json:"sequence"`
	} `json:"rules"`
}

// decode reads in as the function's request.GetInput does; the error
// says what it refuses (in encoding/json's words, not the function's).
func decode(in map[string]any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var v input
	return dec.Decode(&v)
}
