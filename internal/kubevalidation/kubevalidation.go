// Package kubevalidation runs kube-apiserver's own create validation of
// built-in kinds: the code of k8s.io/kubernetes at the version go.mod
// names, not a re-implementation. An object is decoded as the API server
// decodes a create request's body (legacyscheme's codecs: the JSON
// serializer, the group's defaulting functions, conversion to the internal
// type), its metadata prepared as the create handler and the generic
// registry prepare it (system fields wiped and filled, a generated name,
// the request's namespace), and then the kind's registry strategy runs
// what rest.BeforeCreate runs: PrepareForCreate, then rest.ValidateCreate
// (the strategy's Validate — pkg/apis/<group>/validation — the ObjectMeta
// rules, and the declarative validation Kubernetes generates from +k8s:
// tags). Admission (plugins, webhooks, policies), quota, the REST
// storages' allocations (a Service's cluster IP and node ports) and
// anything else that needs a cluster are not run.
package kubevalidation

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/klog/v2"

	// The API groups kube-apiserver serves, installed into legacyscheme
	// as pkg/controlplane/import_known_versions.go installs them.
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/flowcontrol/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
)

// Minor is the Kubernetes minor whose validation this package links
// (k8s.io/kubernetes v1.37.x; TestLinkedVersion holds it to go.mod).
const Minor = "1.37"

// Result is what the API server's create validation says of an object.
type Result struct {
	// Errors are the field errors of the create's Invalid answer, in the
	// API server's order.
	Errors field.ErrorList
	// DecodeError is set when the object does not decode into its Go
	// type: the API server answers 400 and validates nothing.
	DecodeError error
	// Panic is set when the validation code panicked: what it said, and
	// where. Errors then holds nothing.
	Panic string
	// Failed is set when the create path ended otherwise than valid or
	// Invalid (an internal error): what it said. Errors then holds
	// nothing.
	Failed error
}

// Handles reports whether the API server's create validation of the kind
// at apiVersion is linked here.
func Handles(apiVersion, kindName string) bool {
	_, _, ok := lookup(apiVersion, kindName)
	return ok
}

func lookup(apiVersion, kindName string) (schema.GroupVersionKind, kind, bool) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || kindName == "" {
		return schema.GroupVersionKind{}, kind{}, false
	}
	gvk := gv.WithKind(kindName)
	k, ok := kinds[gvk.GroupKind()]
	if !ok {
		return gvk, kind{}, false
	}
	if k.codecs == nil {
		k.scheme, k.codecs = legacyscheme.Scheme, &legacyscheme.Codecs
	}
	if !k.scheme.Recognizes(gvk) {
		return gvk, kind{}, false
	}
	return gvk, k, true
}

// generatedSuffix stands for the five random characters
// names.SimpleNameGenerator appends to a generateName: fixed, so that
// what is said of a generated name is the same on every run.
const generatedSuffix = "x7k2q"

// Validate runs the API server's create path for obj (a JSON-compatible
// value, as sigs.k8s.io/yaml decodes a manifest), as a server-side dry
// run sent in obj's namespace (else "default", as kubectl sends it)
// would. ok is false when the kind is not one Handles knows. obj is not
// modified. A panic in the validation code is recovered into
// Result.Panic.
func Validate(ctx context.Context, obj map[string]any) (res Result, ok bool) {
	apiVersion, _ := obj["apiVersion"].(string)
	kindName, _ := obj["kind"].(string)
	gvk, k, ok := lookup(apiVersion, kindName)
	if !ok {
		return Result{}, false
	}
	defer func() {
		if r := recover(); r != nil {
			res = Result{Panic: fmt.Sprintf("%v at %s", r, panicSite(debug.Stack()))}
		}
	}()
	body, err := json.Marshal(obj)
	if err != nil {
		return Result{DecodeError: err}, true
	}
	// The create handler: the request body decoded to the internal
	// version (defaulting on the way), as r.New() of the resource.
	decoded, _, err := k.codecs.UniversalDecoder().Decode(body, &gvk, nil)
	if err != nil {
		return Result{DecodeError: err}, true
	}
	objectMeta, err := meta.Accessor(decoded)
	if err != nil {
		return Result{DecodeError: err}, true
	}
	namespaced := k.strategy.NamespaceScoped()
	requestNamespace := ""
	if namespaced {
		requestNamespace = objectMeta.GetNamespace()
		if requestNamespace == "" {
			requestNamespace = metav1.NamespaceDefault
		}
	}
	rest.WipeObjectMetaSystemFields(objectMeta)
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForScope(requestNamespace, namespaced), objectMeta); err != nil {
		return Result{DecodeError: err}, true
	}
	// The generic registry's create: system fields, a generated name.
	rest.FillObjectMetaSystemFields(objectMeta)
	if base := objectMeta.GetGenerateName(); base != "" && objectMeta.GetName() == "" {
		if len(base) > 58 {
			base = base[:58]
		}
		objectMeta.SetName(base + generatedSuffix)
	}
	contextNamespace := requestNamespace
	if gvk.Group == "" && k.resource == "namespaces" {
		contextNamespace = objectMeta.GetName() // the create handler's rule for namespaces
	}
	prefix := "apis"
	if gvk.Group == "" {
		prefix = "api"
	}
	ctx = klog.NewContext(ctx, logr.Discard()) // declarative validation's mismatch reports are the API server's log, not findings
	ctx = genericapirequest.WithNamespace(ctx, contextNamespace)
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: "create", APIPrefix: prefix,
		APIGroup: gvk.Group, APIVersion: gvk.Version,
		Namespace: requestNamespace, Resource: k.resource, Name: objectMeta.GetName(),
	})
	ctx = genericapirequest.WithUser(ctx, &user.DefaultInfo{Name: "crd-lsp", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}})
	if k.resource == "services" && gvk.Group == "" {
		errs, err := validateService(ctx, decoded)
		return Result{Errors: errs, Failed: err}, true
	}
	// rest.BeforeCreate, less its checks of what the lines above set.
	k.strategy.PrepareForCreate(ctx, decoded)
	return Result{Errors: rest.ValidateCreate(ctx, decoded, k.strategy)}, true
}

// panicSite is the first frame of a panic's stack outside the runtime
// and this package: where the validation code failed.
func panicSite(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for i := 0; i+1 < len(lines); i++ {
		fn := strings.TrimSpace(lines[i])
		if strings.HasPrefix(fn, "k8s.io/") && !strings.HasPrefix(fn, "k8s.io/apimachinery/pkg/util/runtime") {
			return fn + " " + strings.TrimSpace(lines[i+1])
		}
	}
	return "unknown"
}
