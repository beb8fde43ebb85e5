// This file runs a Composition's pipeline as Crossplane's reconciler does
// (Run): steps in order, requirements iterated, each call bounded.

package functions

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// MaxRequirementsIterations is how many more times a step is called while
// its required resources change, as in Crossplane.
const MaxRequirementsIterations = 5

// DefaultTimeout bounds one function call when Input.Timeout (or
// Config.CallTimeout) is zero.
const DefaultTimeout = 30 * time.Second

// Input is what a pipeline runs with.
type Input struct {
	// Composition is the decoded Composition; its spec.pipeline is run.
	Composition map[string]any
	// XR is the observed composite resource, XRConnectionDetails its
	// connection details.
	XR                  map[string]any
	XRConnectionDetails map[string][]byte
	// Observed are observed composed resources by composition resource
	// name (crossplane render --observed-resources); usually none.
	Observed map[string]Resource
	// Context is the context the first step gets (crossplane render
	// --context-values); nil is an empty context.
	Context map[string]any
	// Resources are the resources that required (and extra) resource
	// selectors can find (crossplane render --required-resources).
	Resources []map[string]any
	// Credentials holds the data of the Secrets steps name, keyed
	// "namespace/name": placeholders from the user's own files, never a
	// cluster's. A credential whose Secret is not here gets empty data.
	Credentials map[string]map[string][]byte
	// Route picks how each step runs; nil (or a nil Runner) skips the
	// step, passing the desired state through.
	Route Router
	// Timeout bounds each function call (DefaultTimeout when zero).
	Timeout time.Duration
}

// Output is what a pipeline run gave.
type Output struct {
	Steps []StepResult
	// Desired is the desired state after the last step that completed:
	// the composite as functions set it (usually only its status) and the
	// composed resources by name, each with the step that last changed it.
	Desired State
	// Context is the context the last step that completed returned.
	Context map[string]any
	// Stopped is the index in Steps of the step that stopped the pipeline
	// (a Fatal result or an Err), -1 when every step ran or was skipped.
	Stopped int
	// Err is a failure before any step ran (an XR that cannot be encoded).
	Err error
}

// Steps reads a Composition's spec.pipeline.
func Steps(composition map[string]any) []Step {
	spec, _ := composition["spec"].(map[string]any)
	list, _ := spec["pipeline"].([]any)
	steps := make([]Step, 0, len(list))
	for i, s := range list {
		sm, _ := s.(map[string]any)
		st := Step{Index: i}
		st.Name, _ = sm["step"].(string)
		if ref, ok := sm["functionRef"].(map[string]any); ok {
			st.Function, _ = ref["name"].(string)
		}
		st.Input, _ = sm["input"].(map[string]any)
		creds, _ := sm["credentials"].([]any)
		for _, c := range creds {
			cm, _ := c.(map[string]any)
			var cr Credential
			cr.Name, _ = cm["name"].(string)
			cr.Source, _ = cm["source"].(string)
			if ref, ok := cm["secretRef"].(map[string]any); ok {
				cr.SecretNamespace, _ = ref["namespace"].(string)
				cr.SecretName, _ = ref["name"].(string)
			}
			st.Credentials = append(st.Credentials, cr)
		}
		reqs, _ := sm["requirements"].(map[string]any)
		rr, _ := reqs["requiredResources"].([]any)
		for _, r := range rr {
			rm, _ := r.(map[string]any)
			var sel Selector
			sel.Name, _ = rm["requirementName"].(string)
			sel.APIVersion, _ = rm["apiVersion"].(string)
			sel.Kind, _ = rm["kind"].(string)
			sel.MatchName, _ = rm["name"].(string)
			sel.Namespace, _ = rm["namespace"].(string)
			if ml, ok := rm["matchLabels"].(map[string]any); ok {
				sel.MatchLabels = map[string]string{}
				for k, v := range ml {
					sel.MatchLabels[k] = fmt.Sprint(v)
				}
			}
			st.Requirements = append(st.Requirements, sel)
		}
		steps = append(steps, st)
	}
	return steps
}

// Run runs a Composition's pipeline as Crossplane's reconciler does (see
// the package documentation). It never panics and always returns: a step
// that cannot run is a StepResult.Err.
func Run(ctx context.Context, in Input) (out Output) {
	out.Stopped = -1
	defer func() {
		if r := recover(); r != nil {
			out.Err = fmt.Errorf("running the pipeline failed: %v", r)
		}
	}()
	timeout := in.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	observed, err := observedState(in)
	if err != nil {
		out.Err = err
		return out
	}
	fctx, err := contextStruct(in.Context)
	if err != nil {
		out.Err = fmt.Errorf("initial context: %w", err)
		return out
	}
	desired := &fnv1.State{}
	producedBy := map[string]int{}
	compositeStep := -1
	for _, st := range Steps(in.Composition) {
		res := StepResult{Step: st}
		var run Runner
		if in.Route != nil {
			run, res.Runner = in.Route(st)
		}
		if run == nil {
			res.Skipped = true
			out.Steps = append(out.Steps, res)
			continue
		}
		req := &fnv1.RunFunctionRequest{Observed: observed, Desired: desired, Context: fctx}
		if st.Input != nil {
			s, err := ToStruct(st.Input)
			if err != nil {
				res.Err = fmt.Errorf("cannot encode the input of step %q: %w", st.Name, err)
				out.Steps, out.Stopped = append(out.Steps, res), len(out.Steps)
				break
			}
			req.Input = s
		}
		req.Credentials = map[string]*fnv1.Credentials{}
		for _, c := range st.Credentials {
			if c.Source != "Secret" || c.SecretName == "" {
				continue
			}
			data := in.Credentials[c.SecretNamespace+"/"+c.SecretName]
			if data == nil {
				data = map[string][]byte{}
			}
			req.Credentials[c.Name] = &fnv1.Credentials{Source: &fnv1.Credentials_CredentialData{CredentialData: &fnv1.CredentialData{Data: data}}}
		}
		if len(st.Requirements) > 0 {
			req.RequiredResources = map[string]*fnv1.Resources{}
			for _, sel := range st.Requirements {
				req.RequiredResources[sel.Name] = fetch(in.Resources, sel.proto())
			}
		}
		req.Meta = &fnv1.RequestMeta{Tag: Tag(req)}

		rsp, calls, err := RunWithRequirements(ctx, run, st, req, in.Resources, timeout, res.Runner)
		res.Calls = calls
		if err != nil {
			res.Err = err
			out.Steps, out.Stopped = append(out.Steps, res), len(out.Steps)
			break
		}
		for name, sel := range rsp.GetRequirements().GetResources() {
			res.Requirements = append(res.Requirements, fromSelector(name, sel))
		}
		for name, sel := range rsp.GetRequirements().GetExtraResources() { //nolint:staticcheck // Crossplane still resolves the deprecated field
			res.Requirements = append(res.Requirements, fromSelector(name, sel))
		}
		sort.Slice(res.Requirements, func(i, j int) bool { return res.Requirements[i].Name < res.Requirements[j].Name })
		for _, c := range rsp.GetConditions() {
			res.Conditions = append(res.Conditions, Condition{
				Type: Escape(c.GetType(), false), Status: conditionStatus(c.GetStatus()), Reason: Escape(c.GetReason(), false), Message: Escape(c.GetMessage(), true), Target: fromTarget(c.GetTarget()),
			})
		}
		fatal := false
		for _, r := range rsp.GetResults() {
			// (Text from the function: escaped, whoever prints it.)
			pr := Result{Message: Escape(r.GetMessage(), true), Reason: Escape(r.GetReason(), false), Target: fromTarget(r.GetTarget())}
			switch r.GetSeverity() {
			case fnv1.Severity_SEVERITY_FATAL:
				pr.Severity = SeverityFatal
				fatal = true
			case fnv1.Severity_SEVERITY_WARNING:
				pr.Severity = SeverityWarning
			case fnv1.Severity_SEVERITY_NORMAL:
				pr.Severity = SeverityNormal
			default:
				// As Crossplane: a severity this build does not know is a
				// warning on the composite.
				pr.Severity = SeverityWarning
				pr.Target = TargetComposite
				pr.Message = fmt.Sprintf("Pipeline step %q returned a result of unknown severity (assuming warning): %s", st.Name, pr.Message)
			}
			res.Results = append(res.Results, pr)
			if fatal {
				break // Crossplane stops at the first Fatal result
			}
		}
		if fatal {
			out.Steps, out.Stopped = append(out.Steps, res), len(out.Steps)
			break
		}
		next := rsp.GetDesired()
		if next == nil {
			next = &fnv1.State{}
		}
		for name, r := range next.GetResources() {
			if old, ok := desired.GetResources()[name]; !ok || !proto.Equal(old, r) {
				res.Composed = append(res.Composed, name)
				producedBy[name] = st.Index
			}
		}
		for name := range desired.GetResources() {
			if _, ok := next.GetResources()[name]; !ok {
				res.Removed = append(res.Removed, name)
				delete(producedBy, name)
			}
		}
		if !proto.Equal(desired.GetComposite(), next.GetComposite()) {
			compositeStep = st.Index
		}
		sort.Strings(res.Composed)
		sort.Strings(res.Removed)
		desired = next
		fctx = rsp.GetContext()
		out.Steps = append(out.Steps, res)
	}
	out.Desired = FromState(desired)
	out.Desired.Composite.Step = compositeStep
	for name, r := range out.Desired.Resources {
		r.Step = producedBy[name]
		out.Desired.Resources[name] = r
	}
	out.Context = FromStruct(fctx)
	return out
}

func observedState(in Input) (*fnv1.State, error) {
	xr, err := ToStruct(in.XR)
	if err != nil {
		return nil, fmt.Errorf("cannot encode the composite resource: %w", err)
	}
	o := &fnv1.State{Composite: &fnv1.Resource{Resource: xr, ConnectionDetails: in.XRConnectionDetails}}
	for name, r := range in.Observed {
		s, err := ToStruct(r.Object)
		if err != nil {
			return nil, fmt.Errorf("cannot encode observed resource %q: %w", name, err)
		}
		if o.Resources == nil {
			o.Resources = map[string]*fnv1.Resource{}
		}
		o.Resources[name] = &fnv1.Resource{Resource: s, ConnectionDetails: r.ConnectionDetails}
	}
	return o, nil
}

func conditionStatus(s fnv1.Status) string {
	switch s {
	case fnv1.Status_STATUS_CONDITION_TRUE:
		return "True"
	case fnv1.Status_STATUS_CONDITION_FALSE:
		return "False"
	}
	return "Unknown"
}

// RunWithRequirements calls a step until its requirements stabilise, as
// Crossplane's FetchingFunctionRunner: the resources each response
// requires are fetched from resources and the step is called again. It
// returns the last response and how many calls were made.
func RunWithRequirements(ctx context.Context, run Runner, st Step, req *fnv1.RunFunctionRequest, resources []map[string]any, timeout time.Duration, name string) (*fnv1.RunFunctionResponse, int, error) {
	var last *fnv1.Requirements
	bootstrap := maps.Clone(req.GetRequiredResources())
	calls := 0
	for i := 0; i <= MaxRequirementsIterations; i++ {
		calls++
		rsp, err := call(ctx, run, st, req, timeout, name)
		if err != nil {
			return nil, calls, err
		}
		for _, r := range rsp.GetResults() {
			if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
				return rsp, calls, nil
			}
		}
		reqs := rsp.GetRequirements()
		if proto.Equal(reqs, last) {
			return rsp, calls, nil
		}
		next := maps.Clone(bootstrap)
		if next == nil {
			next = map[string]*fnv1.Resources{}
		}
		extra := map[string]*fnv1.Resources{}
		for n, sel := range reqs.GetExtraResources() { //nolint:staticcheck // Crossplane still resolves the deprecated field
			extra[n] = fetch(resources, sel)
		}
		for n, sel := range reqs.GetResources() {
			next[n] = fetch(resources, sel)
		}
		eq := func(a, b *fnv1.Resources) bool { return proto.Equal(a, b) }
		if i == 0 && maps.EqualFunc(req.GetRequiredResources(), next, eq) && maps.EqualFunc(req.GetExtraResources(), extra, eq) { //nolint:staticcheck
			return rsp, calls, nil
		}
		last = reqs
		req = proto.Clone(req).(*fnv1.RunFunctionRequest)
		req.RequiredResources = next
		req.ExtraResources = extra //nolint:staticcheck
		req.Context = rsp.GetContext()
	}
	return nil, calls, fmt.Errorf("step %q: requirements didn't stabilize after the maximum number of iterations (%d)", st.Name, MaxRequirementsIterations)
}

// ErrTimeout is wrapped by the error of a call that did not answer in time.
var ErrTimeout = errors.New("function did not answer in time")

// call makes one call with a timeout, in a goroutine so that a Runner
// that ignores its context cannot block the pipeline, and turns panics
// and empty answers into errors.
func call(ctx context.Context, run Runner, st Step, req *fnv1.RunFunctionRequest, timeout time.Duration, name string) (*fnv1.RunFunctionResponse, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type answer struct {
		rsp *fnv1.RunFunctionResponse
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- answer{err: fmt.Errorf("%s panicked: %v", orName(name, st), r)}
			}
		}()
		rsp, err := run.Run(cctx, st, req)
		ch <- answer{rsp, err}
	}()
	select {
	case a := <-ch:
		if a.err != nil {
			// Our own deadline passed (the runner may say so in its own
			// words, such as a gRPC status): it is a timeout.
			if ctx.Err() == nil && (errors.Is(cctx.Err(), context.DeadlineExceeded) || status.Code(a.err) == codes.DeadlineExceeded) {
				return nil, fmt.Errorf("%s did not answer within %s: %w", orName(name, st), timeout, ErrTimeout)
			}
			return nil, a.err
		}
		if a.rsp == nil {
			return nil, fmt.Errorf("%s returned no response", orName(name, st))
		}
		return a.rsp, nil
	case <-cctx.Done():
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%s did not answer within %s: %w", orName(name, st), timeout, ErrTimeout)
	}
}

func orName(name string, st Step) string {
	if name != "" {
		return name
	}
	if st.Function != "" {
		return st.Function
	}
	return fmt.Sprintf("step %q", st.Name)
}

func (s Selector) proto() *fnv1.ResourceSelector {
	out := &fnv1.ResourceSelector{ApiVersion: s.APIVersion, Kind: s.Kind}
	if s.Namespace != "" {
		ns := s.Namespace
		out.Namespace = &ns
	}
	switch {
	case s.MatchName != "":
		out.Match = &fnv1.ResourceSelector_MatchName{MatchName: s.MatchName}
	case s.MatchLabels != nil:
		out.Match = &fnv1.ResourceSelector_MatchLabels{MatchLabels: &fnv1.MatchLabels{Labels: s.MatchLabels}}
	}
	return out
}

func fromSelector(name string, s *fnv1.ResourceSelector) Selector {
	return Selector{Name: name, APIVersion: s.GetApiVersion(), Kind: s.GetKind(), MatchName: s.GetMatchName(),
		MatchLabels: s.GetMatchLabels().GetLabels(), Namespace: s.GetNamespace()}
}

// fetch finds the resources a selector selects among the given ones, as
// Crossplane's required resources fetcher does on a cluster: by name (nil
// when there is none), by labels, or every resource of the kind, in the
// selector's namespace when it has one, sorted by namespace and name.
func fetch(resources []map[string]any, sel *fnv1.ResourceSelector) *fnv1.Resources {
	if sel == nil {
		return nil
	}
	var items []map[string]any
	for _, r := range resources {
		if r["apiVersion"] != sel.GetApiVersion() || r["kind"] != sel.GetKind() {
			continue
		}
		md, _ := r["metadata"].(map[string]any)
		if sel.Namespace != nil && sel.GetNamespace() != "" && md["namespace"] != sel.GetNamespace() {
			continue
		}
		switch m := sel.GetMatch().(type) {
		case *fnv1.ResourceSelector_MatchName:
			if md["name"] != m.MatchName {
				continue
			}
		case *fnv1.ResourceSelector_MatchLabels:
			labels, _ := md["labels"].(map[string]any)
			ok := true
			for k, v := range m.MatchLabels.GetLabels() {
				ok = ok && labels[k] == v
			}
			if !ok {
				continue
			}
		}
		items = append(items, r)
	}
	key := func(r map[string]any) string {
		md, _ := r["metadata"].(map[string]any)
		return fmt.Sprint(md["namespace"], "/", md["name"])
	}
	sort.SliceStable(items, func(i, j int) bool { return key(items[i]) < key(items[j]) })
	if _, byName := sel.GetMatch().(*fnv1.ResourceSelector_MatchName); byName {
		if len(items) == 0 {
			return nil
		}
		items = items[:1]
	}
	out := &fnv1.Resources{Items: []*fnv1.Resource{}}
	for _, r := range items {
		s, err := ToStruct(r)
		if err != nil {
			continue
		}
		out.Items = append(out.Items, &fnv1.Resource{Resource: s})
	}
	return out
}
