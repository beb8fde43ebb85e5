package kubevalidation

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"k8s.io/kubernetes/pkg/apis/resource"
)

// adminNamespaces is the namespace client the DRA claim strategies ask
// whether a claim's namespace allows admin access to devices: every
// namespace does here (its label is the cluster's business). Only Get
// is ever called.
type adminNamespaces struct {
	corev1client.NamespaceInterface
}

func (adminNamespaces) Get(_ context.Context, name string, _ metav1.GetOptions) (*corev1.Namespace, error) {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{resource.DRAAdminNamespaceLabelKey: "true"}}}, nil
}
