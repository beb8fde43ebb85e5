package kubevalidation

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"

	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/core/service/ipallocator"
	"k8s.io/kubernetes/pkg/registry/core/service/portallocator"
	servicestorage "k8s.io/kubernetes/pkg/registry/core/service/storage"
)

// A Service is created through its own REST storage, not the strategy
// alone: before validation, its BeginCreate hook syncs clusterIP with
// clusterIPs, defaults ipFamilyPolicy and ipFamilies from the cluster's
// configuration, and allocates cluster IPs and node ports; validation
// then judges the result. The storage here is kube-apiserver's own
// (pkg/registry/core/service/storage), built as the control plane builds
// it but for a cluster that refuses nothing it could be configured to
// allow: dual-stack (IPv4 first), every IP and node port free and in
// range. (A dry run, which this is, asks the node port allocator only
// whether a port is taken, not whether it is in range: kube-apiserver's
// dry run accepts nodePort: 70000, its create does not.) What depends on the real cluster's service CIDRs and node port
// range, or on what is already allocated, is left out.

var (
	serviceOnce sync.Once
	serviceREST *servicestorage.REST
	serviceErr  error
)

func serviceStorage() (*servicestorage.REST, error) {
	serviceOnce.Do(func() {
		opts := generic.RESTOptions{
			StorageConfig: &storagebackend.ConfigForResource{
				Config:        storagebackend.Config{Codec: legacyscheme.Codecs.LegacyCodec(legacyscheme.Scheme.PrioritizedVersionsForGroup("")...)},
				GroupResource: api.Resource("services"),
			},
			Decorator:      noStorage,
			ResourcePrefix: "services",
		}
		ips := map[api.IPFamily]ipallocator.Interface{
			api.IPv4Protocol: &anyIP{family: api.IPv4Protocol, next: net.ParseIP("10.0.0.10"), cidr: net.IPNet{IP: net.IPv4zero.To4(), Mask: net.CIDRMask(0, 32)}},
			api.IPv6Protocol: &anyIP{family: api.IPv6Protocol, next: net.ParseIP("fd00::10"), cidr: net.IPNet{IP: net.IPv6zero, Mask: net.CIDRMask(0, 128)}},
		}
		serviceREST, _, _, serviceErr = servicestorage.NewREST(opts, api.IPv4Protocol, ips, anyPort{}, nil, nil, nil)
	})
	return serviceREST, serviceErr
}

// validateService runs a dry-run create of a Service through its REST
// storage. ctx carries the request's namespace and information.
func validateService(ctx context.Context, svc runtime.Object) (field.ErrorList, error) {
	st, err := serviceStorage()
	if err != nil {
		return nil, fmt.Errorf("building the Service storage: %w", err)
	}
	_, err = st.Create(ctx, svc, nil, &metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err == nil {
		return nil, nil
	}
	return statusErrors(err)
}

// statusErrors turns the Invalid answer of a create back into field
// errors: the causes keep each error's type, field and body (the value
// and detail as the API server printed them).
func statusErrors(err error) (field.ErrorList, error) {
	var se *apierrors.StatusError
	if !asStatus(err, &se) || se.ErrStatus.Details == nil || se.ErrStatus.Reason != metav1.StatusReasonInvalid {
		return nil, err
	}
	var out field.ErrorList
	for _, c := range se.ErrStatus.Details.Causes {
		t := field.ErrorType(c.Type)
		detail := strings.TrimPrefix(strings.TrimPrefix(c.Message, t.String()), ": ")
		out = append(out, &field.Error{Type: t, Field: c.Field, BadValue: field.OmitValueType{}, Detail: detail})
	}
	return out, nil
}

func asStatus(err error, se **apierrors.StatusError) bool {
	s, ok := err.(*apierrors.StatusError)
	if ok {
		*se = s
	}
	return ok
}

// noStorage is a storage that holds nothing: a dry-run create asks it
// whether the name is taken (it is not) and nothing else.
func noStorage(_ *storagebackend.ConfigForResource, _ string, _ func(runtime.Object) (string, error), _ func() runtime.Object, _ func() runtime.Object, _ storage.AttrFunc, _ storage.IndexerFuncs, _ *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
	return emptyStorage{}, func() {}, nil
}

type emptyStorage struct{ storage.Interface }

func (emptyStorage) Get(_ context.Context, key string, _ storage.GetOptions, _ runtime.Object) error {
	return storage.NewKeyNotFoundError(key, 0)
}

// anyIP is a service IP allocator of a cluster where every address of
// its family is in range and free.
type anyIP struct {
	family api.IPFamily
	next   net.IP
	cidr   net.IPNet
}

func (a *anyIP) Allocate(net.IP) error         { return nil }
func (a *anyIP) AllocateNext() (net.IP, error) { return a.next, nil }
func (a *anyIP) Release(net.IP) error          { return nil }
func (a *anyIP) ForEach(func(net.IP))          {}
func (a *anyIP) CIDR() net.IPNet               { return a.cidr }
func (a *anyIP) IPFamily() api.IPFamily        { return a.family }
func (a *anyIP) Has(net.IP) bool               { return false }
func (a *anyIP) Destroy()                      {}
func (a *anyIP) EnableMetrics()                {}
func (a *anyIP) DryRun() ipallocator.Interface { return a }

// anyPort is a node port allocator of a cluster where every port is in
// range and free.
type anyPort struct{}

func (anyPort) Allocate(int) error         { return nil }
func (anyPort) AllocateNext() (int, error) { return 30000, nil }
func (anyPort) Release(int) error          { return nil }
func (anyPort) ForEach(func(int))          {}
func (anyPort) Has(int) bool               { return false }
func (anyPort) Destroy()                   {}
func (anyPort) EnableMetrics()             {}

var (
	_ ipallocator.Interface   = (*anyIP)(nil)
	_ portallocator.Interface = anyPort{}
)
