// Command fn is a small composition function for crd-lsp's tests of
// internal/functions. It is built with function-sdk-go like any real
// function and served with the SDK's flags (--insecure, --address,
// --network). What it does is driven by its input, in this order:
//
//	apiVersion: test.crd-lsp.dev/v1
//	kind: Script
//	crash: true                 # panic in the handler: the process dies
//	hang: true                  # never answer
//	flood: true                 # write to stderr without end, and answer
//	fail: message               # answer with a gRPC error saying message
//	oom: true                   # run out of memory (a Go fatal error with a goroutine dump)
//	require: {name: {apiVersion, kind, matchName | matchLabels, namespace}}
//	                            # ask for required resources until they come
//	setContext: {key: value}    # write context keys
//	compose:                    # add (or replace) desired composed resources
//	- name: r
//	  resource: {...}
//	  fromContext: {key: field} # copy context keys into .data.<field>
//	  ready: true
//	results: [{severity: Normal|Warning|Fatal, message, reason, target}]
//	conditions: [{type, status, reason, message}]
//	echo: name                  # compose a ConfigMap "name" describing the request
//
// An input of kind Typed is decoded instead as functions decode theirs
// (function-sdk-go's request.GetInput into a Go type: unknown members and
// wrong JSON types fail, nothing else of an input CRD is enforced) and
// answered with a Normal result naming what it read, or a Fatal one.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"

	function "github.com/crossplane/function-sdk-go"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/request"
	"github.com/crossplane/function-sdk-go/response"
	"google.golang.org/protobuf/types/known/structpb"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

type fn struct {
	fnv1.UnimplementedFunctionRunnerServiceServer
}

func (fn) RunFunction(_ context.Context, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
	rsp := response.To(req, response.DefaultTTL)
	in := req.GetInput().AsMap()
	if in["kind"] == "Typed" {
		var ti typedInput
		if err := request.GetInput(req, &ti); err != nil {
			response.Fatal(rsp, err)
			return rsp, nil
		}
		response.Normalf(rsp, "decoded mode %q count %d", ti.Mode, ti.Count)
		return rsp, nil
	}
	if in["crash"] == true {
		panic("crashing as the input asks")
	}
	if msg, ok := in["fail"].(string); ok {
		return nil, errors.New(msg)
	}
	if in["flood"] == true {
		fmt.Fprintln(os.Stderr, "flooding as the input asks")
		go func() {
			line := []byte("flooding " + strings.Repeat("x", 100) + "\n")
			for {
				_, _ = os.Stderr.Write(line)
			}
		}()
	}
	if in["oom"] == true {
		outOfMemory()
	}
	if in["hang"] == true {
		fmt.Fprintln(os.Stderr, "hanging as the input asks")
		select {}
	}
	if reqs, ok := in["require"].(map[string]any); ok {
		missing := false
		for name := range reqs {
			if _, ok := req.GetRequiredResources()[name]; !ok {
				missing = true
			}
		}
		if missing {
			rsp.Requirements = &fnv1.Requirements{Resources: map[string]*fnv1.ResourceSelector{}}
			for name, s := range reqs {
				rsp.Requirements.Resources[name] = selector(s.(map[string]any))
			}
			return rsp, nil
		}
		// Answer with the same requirements, so that they stabilise.
		rsp.Requirements = &fnv1.Requirements{Resources: map[string]*fnv1.ResourceSelector{}}
		for name, s := range reqs {
			rsp.Requirements.Resources[name] = selector(s.(map[string]any))
		}
	}
	if sc, ok := in["setContext"].(map[string]any); ok {
		for k, v := range sc {
			pv, err := structpb.NewValue(v)
			if err != nil {
				response.Fatal(rsp, err)
				return rsp, nil
			}
			response.SetContextKey(rsp, k, pv)
		}
	}
	var echoed *structpb.Struct
	if _, ok := in["echo"].(string); ok {
		echoed = echo(req) // before composing: response.To shares req's desired state
	}
	if rsp.Desired == nil {
		rsp.Desired = &fnv1.State{}
	}
	if rsp.Desired.Resources == nil {
		rsp.Desired.Resources = map[string]*fnv1.Resource{}
	}
	compose, _ := in["compose"].([]any)
	for _, c := range compose {
		cm := c.(map[string]any)
		name, _ := cm["name"].(string)
		obj, _ := cm["resource"].(map[string]any)
		if fc, ok := cm["fromContext"].(map[string]any); ok {
			data, _ := obj["data"].(map[string]any)
			if data == nil {
				data = map[string]any{}
			}
			for key, field := range fc {
				v, ok := req.GetContext().GetFields()[key]
				if !ok {
					data[field.(string)] = "<unset>"
					continue
				}
				data[field.(string)] = fmt.Sprint(v.AsInterface())
			}
			obj["data"] = data
		}
		s, err := structpb.NewStruct(obj)
		if err != nil {
			response.Fatal(rsp, err)
			return rsp, nil
		}
		r := &fnv1.Resource{Resource: s}
		if cm["ready"] == true {
			r.Ready = fnv1.Ready_READY_TRUE
		}
		rsp.Desired.Resources[name] = r
	}
	if name, ok := in["echo"].(string); ok {
		rsp.Desired.Resources[name] = &fnv1.Resource{Resource: echoed}
	}
	results, _ := in["results"].([]any)
	for _, r := range results {
		rm := r.(map[string]any)
		msg, _ := rm["message"].(string)
		var o *response.ResultOption
		switch rm["severity"] {
		case "Fatal":
			response.Fatal(rsp, errors.New(msg))
		case "Warning":
			o = response.Warning(rsp, errors.New(msg))
		default:
			o = response.Normal(rsp, msg)
		}
		if o != nil {
			if reason, ok := rm["reason"].(string); ok {
				o.WithReason(reason)
			}
			if rm["target"] == "CompositeAndClaim" {
				o.TargetCompositeAndClaim()
			}
		}
	}
	conds, _ := in["conditions"].([]any)
	for _, c := range conds {
		cm := c.(map[string]any)
		st := fnv1.Status_STATUS_CONDITION_UNKNOWN
		switch cm["status"] {
		case "True":
			st = fnv1.Status_STATUS_CONDITION_TRUE
		case "False":
			st = fnv1.Status_STATUS_CONDITION_FALSE
		}
		msg, _ := cm["message"].(string)
		typ, _ := cm["type"].(string)
		reason, _ := cm["reason"].(string)
		rsp.Conditions = append(rsp.Conditions, &fnv1.Condition{Type: typ, Status: st, Reason: reason, Message: &msg})
	}
	return rsp, nil
}

func selector(m map[string]any) *fnv1.ResourceSelector {
	s := &fnv1.ResourceSelector{}
	s.ApiVersion, _ = m["apiVersion"].(string)
	s.Kind, _ = m["kind"].(string)
	if ns, ok := m["namespace"].(string); ok {
		s.Namespace = &ns
	}
	if n, ok := m["matchName"].(string); ok {
		s.Match = &fnv1.ResourceSelector_MatchName{MatchName: n}
	}
	if l, ok := m["matchLabels"].(map[string]any); ok {
		ml := &fnv1.MatchLabels{Labels: map[string]string{}}
		for k, v := range l {
			ml.Labels[k] = fmt.Sprint(v)
		}
		s.Match = &fnv1.ResourceSelector_MatchLabels{MatchLabels: ml}
	}
	return s
}

// echo describes the request as a ConfigMap, for tests to read back.
func echo(req *fnv1.RunFunctionRequest) *structpb.Struct {
	data := map[string]any{}
	data["observed-composite"] = fmt.Sprint(req.GetObserved().GetComposite().GetResource().GetFields()["metadata"].GetStructValue().GetFields()["name"].GetStringValue())
	data["observed-connection"] = joinBytes(req.GetObserved().GetComposite().GetConnectionDetails())
	var names []string
	for n := range req.GetDesired().GetResources() {
		names = append(names, n)
	}
	sort.Strings(names)
	data["desired"] = strings.Join(names, ",")
	names = nil
	for n := range req.GetObserved().GetResources() {
		names = append(names, n)
	}
	sort.Strings(names)
	data["observed"] = strings.Join(names, ",")
	var keys []string
	for k := range req.GetContext().GetFields() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	data["context"] = strings.Join(keys, ",")
	var creds []string
	for n, c := range req.GetCredentials() {
		creds = append(creds, n+"="+joinBytes(c.GetCredentialData().GetData()))
	}
	sort.Strings(creds)
	data["credentials"] = strings.Join(creds, ";")
	var req2 []string
	for n, rs := range req.GetRequiredResources() {
		var items []string
		for _, it := range rs.GetItems() {
			items = append(items, it.GetResource().GetFields()["metadata"].GetStructValue().GetFields()["name"].GetStringValue())
		}
		req2 = append(req2, n+"="+strings.Join(items, ","))
	}
	sort.Strings(req2)
	data["required"] = strings.Join(req2, ";")
	data["input-kind"] = fmt.Sprint(req.GetInput().AsMap()["kind"])
	data["tag-set"] = fmt.Sprint(req.GetMeta().GetTag() != "")
	s, _ := structpb.NewStruct(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": data})
	return s
}

func joinBytes(m map[string][]byte) string {
	var kv []string
	for k, v := range m {
		kv = append(kv, k+":"+string(v))
	}
	sort.Strings(kv)
	return strings.Join(kv, ",")
}

// sink keeps outOfMemory's allocation reachable.
var sink []byte

// outOfMemory runs out of memory as a function on a small memory limit
// would: with goroutines enough that the runtime's dump is long, the
// address space limited to what the process has plus 256 MiB, and 1 GiB
// asked for.
func outOfMemory() {
	for i := 0; i < 50; i++ {
		go func() { select {} }()
	}
	var pages int64
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		fmt.Sscan(string(b), &pages)
	}
	limit := uint64(pages*int64(os.Getpagesize())) + 256<<20
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		panic(err)
	}
	sink = make([]byte, 1<<30)
}

func main() {
	insecure := flag.Bool("insecure", false, "serve without mTLS")
	network := flag.String("network", "tcp", "network to listen on")
	address := flag.String("address", ":9443", "address to listen at")
	certs := flag.String("tls-server-certs-dir", "", "mTLS certificates")
	flag.Bool("debug", false, "debug logs")
	flag.Parse()
	err := function.Serve(fn{},
		function.Listen(*network, *address),
		function.MTLSCertificates(*certs),
		function.Insecure(*insecure),
		function.WithMetricsServer(""))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// typedInput is the Typed input, a Go type as functions declare theirs.
type typedInput struct {
	metav1.TypeMeta `json:",inline"`
	Mode            string `json:"mode"`
	Count           int    `json:"count"`
}

func (t *typedInput) DeepCopyObject() runtime.Object { c := *t; return &c }
