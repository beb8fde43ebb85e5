package kubevalidation

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/registry/rest"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/apiserver/scheme"
	"k8s.io/kube-aggregator/pkg/registry/apiservice"

	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/apps/controllerrevision"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/certificates/certificates"
	"k8s.io/kubernetes/pkg/registry/certificates/clustertrustbundle"
	"k8s.io/kubernetes/pkg/registry/coordination/lease"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/endpoint"
	"k8s.io/kubernetes/pkg/registry/core/event"
	"k8s.io/kubernetes/pkg/registry/core/limitrange"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	"k8s.io/kubernetes/pkg/registry/core/node"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolume"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/core/resourcequota"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/core/serviceaccount"
	"k8s.io/kubernetes/pkg/registry/discovery/endpointslice"
	"k8s.io/kubernetes/pkg/registry/flowcontrol/flowschema"
	"k8s.io/kubernetes/pkg/registry/flowcontrol/prioritylevelconfiguration"
	"k8s.io/kubernetes/pkg/registry/networking/ingress"
	"k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	"k8s.io/kubernetes/pkg/registry/networking/ipaddress"
	"k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
	"k8s.io/kubernetes/pkg/registry/networking/servicecidr"
	"k8s.io/kubernetes/pkg/registry/node/runtimeclass"
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	"k8s.io/kubernetes/pkg/registry/rbac/role"
	"k8s.io/kubernetes/pkg/registry/rbac/rolebinding"
	"k8s.io/kubernetes/pkg/registry/resource/deviceclass"
	"k8s.io/kubernetes/pkg/registry/resource/devicetaintrule"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaim"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaimtemplate"
	"k8s.io/kubernetes/pkg/registry/resource/resourceslice"
	"k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
	"k8s.io/kubernetes/pkg/registry/storage/csidriver"
	"k8s.io/kubernetes/pkg/registry/storage/csinode"
	"k8s.io/kubernetes/pkg/registry/storage/csistoragecapacity"
	"k8s.io/kubernetes/pkg/registry/storage/storageclass"
	"k8s.io/kubernetes/pkg/registry/storage/volumeattachment"
	"k8s.io/kubernetes/pkg/registry/storage/volumeattributesclass"
)

// kind is one built-in kind kube-apiserver creates through a registry
// strategy: the resource it is served as and the strategy its REST
// storage is built with (pkg/registry/<group>/<resource>/storage).
type kind struct {
	resource string
	strategy rest.RESTCreateStrategy
	// scheme and codecs decode the kind's requests: legacyscheme's
	// (nil), or the aggregator's for APIService.
	scheme *runtime.Scheme
	codecs *serializer.CodecFactory
}

// kinds are the built-in kinds whose create validation crd-lsp runs, by
// group and kind, with the strategy kube-apiserver's storage for them
// uses. The admission policies' strategies are built as their storage
// builds them, without the authorizer and the policy getter: those only
// authorize the requesting user for a policy's parameters, which depends
// on the cluster; ResourceClaim's and ResourceClaimTemplate's with a
// namespace client that finds every namespace labelled for admin access
// to devices (whether one is depends on the cluster). Left out: kinds
// only served as alpha or beta APIs that kube-apiserver leaves off by
// default.
var kinds = map[schema.GroupKind]kind{
	{Group: "", Kind: "ConfigMap"}:                                                    {"configmaps", configmap.Strategy, nil, nil},
	{Group: "", Kind: "Endpoints"}:                                                    {"endpoints", endpoint.Strategy, nil, nil},
	{Group: "", Kind: "Event"}:                                                        {"events", event.Strategy, nil, nil},
	{Group: "", Kind: "LimitRange"}:                                                   {"limitranges", limitrange.Strategy, nil, nil},
	{Group: "", Kind: "Namespace"}:                                                    {"namespaces", namespace.Strategy, nil, nil},
	{Group: "", Kind: "Node"}:                                                         {"nodes", node.Strategy, nil, nil},
	{Group: "", Kind: "PersistentVolume"}:                                             {"persistentvolumes", persistentvolume.Strategy, nil, nil},
	{Group: "", Kind: "PersistentVolumeClaim"}:                                        {"persistentvolumeclaims", persistentvolumeclaim.Strategy, nil, nil},
	{Group: "", Kind: "Pod"}:                                                          {"pods", pod.Strategy, nil, nil},
	{Group: "", Kind: "PodTemplate"}:                                                  {"podtemplates", podtemplate.Strategy, nil, nil},
	{Group: "", Kind: "ReplicationController"}:                                        {"replicationcontrollers", replicationcontroller.Strategy, nil, nil},
	{Group: "", Kind: "ResourceQuota"}:                                                {"resourcequotas", resourcequota.Strategy, nil, nil},
	{Group: "", Kind: "Secret"}:                                                       {"secrets", secret.Strategy, nil, nil},
	{Group: "", Kind: "Service"}:                                                      {"services", service.Strategy, nil, nil},
	{Group: "", Kind: "ServiceAccount"}:                                               {"serviceaccounts", serviceaccount.Strategy, nil, nil},
	{Group: "apps", Kind: "ControllerRevision"}:                                       {"controllerrevisions", controllerrevision.Strategy, nil, nil},
	{Group: "apps", Kind: "DaemonSet"}:                                                {"daemonsets", daemonset.Strategy, nil, nil},
	{Group: "apps", Kind: "Deployment"}:                                               {"deployments", deployment.Strategy, nil, nil},
	{Group: "apps", Kind: "ReplicaSet"}:                                               {"replicasets", replicaset.Strategy, nil, nil},
	{Group: "apps", Kind: "StatefulSet"}:                                              {"statefulsets", statefulset.Strategy, nil, nil},
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:                           {"horizontalpodautoscalers", horizontalpodautoscaler.Strategy, nil, nil},
	{Group: "batch", Kind: "CronJob"}:                                                 {"cronjobs", cronjob.Strategy, nil, nil},
	{Group: "batch", Kind: "Job"}:                                                     {"jobs", job.Strategy, nil, nil},
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}:                 {"certificatesigningrequests", certificates.Strategy, nil, nil},
	{Group: "certificates.k8s.io", Kind: "ClusterTrustBundle"}:                        {"clustertrustbundles", clustertrustbundle.Strategy, nil, nil},
	{Group: "coordination.k8s.io", Kind: "Lease"}:                                     {"leases", lease.Strategy, nil, nil},
	{Group: "discovery.k8s.io", Kind: "EndpointSlice"}:                                {"endpointslices", endpointslice.Strategy, nil, nil},
	{Group: "events.k8s.io", Kind: "Event"}:                                           {"events", event.Strategy, nil, nil},
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"}:                       {"flowschemas", flowschema.Strategy, nil, nil},
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"}:       {"prioritylevelconfigurations", prioritylevelconfiguration.Strategy, nil, nil},
	{Group: "networking.k8s.io", Kind: "Ingress"}:                                     {"ingresses", ingress.Strategy, nil, nil},
	{Group: "networking.k8s.io", Kind: "IngressClass"}:                                {"ingressclasses", ingressclass.Strategy, nil, nil},
	{Group: "networking.k8s.io", Kind: "IPAddress"}:                                   {"ipaddresses", ipaddress.Strategy, nil, nil},
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}:                               {"networkpolicies", networkpolicy.Strategy, nil, nil},
	{Group: "networking.k8s.io", Kind: "ServiceCIDR"}:                                 {"servicecidrs", servicecidr.Strategy, nil, nil},
	{Group: "node.k8s.io", Kind: "RuntimeClass"}:                                      {"runtimeclasses", runtimeclass.Strategy, nil, nil},
	{Group: "policy", Kind: "PodDisruptionBudget"}:                                    {"poddisruptionbudgets", poddisruptionbudget.Strategy, nil, nil},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:                         {"clusterroles", clusterrole.Strategy, nil, nil},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:                  {"clusterrolebindings", clusterrolebinding.Strategy, nil, nil},
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:                                {"roles", role.Strategy, nil, nil},
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:                         {"rolebindings", rolebinding.Strategy, nil, nil},
	{Group: "resource.k8s.io", Kind: "DeviceClass"}:                                   {"deviceclasses", deviceclass.Strategy, nil, nil},
	{Group: "resource.k8s.io", Kind: "DeviceTaintRule"}:                               {"devicetaintrules", devicetaintrule.Strategy, nil, nil},
	{Group: "resource.k8s.io", Kind: "ResourceClaim"}:                                 {"resourceclaims", resourceclaim.NewStrategy(adminNamespaces{}, nil), nil, nil},
	{Group: "resource.k8s.io", Kind: "ResourceClaimTemplate"}:                         {"resourceclaimtemplates", resourceclaimtemplate.NewStrategy(adminNamespaces{}), nil, nil},
	{Group: "resource.k8s.io", Kind: "ResourceSlice"}:                                 {"resourceslices", resourceslice.Strategy, nil, nil},
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:                               {"priorityclasses", priorityclass.Strategy, nil, nil},
	{Group: "storage.k8s.io", Kind: "CSIDriver"}:                                      {"csidrivers", csidriver.Strategy, nil, nil},
	{Group: "storage.k8s.io", Kind: "CSINode"}:                                        {"csinodes", csinode.Strategy, nil, nil},
	{Group: "storage.k8s.io", Kind: "CSIStorageCapacity"}:                             {"csistoragecapacities", csistoragecapacity.Strategy, nil, nil},
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                                   {"storageclasses", storageclass.Strategy, nil, nil},
	{Group: "storage.k8s.io", Kind: "VolumeAttachment"}:                               {"volumeattachments", volumeattachment.Strategy, nil, nil},
	{Group: "storage.k8s.io", Kind: "VolumeAttributesClass"}:                          {"volumeattributesclasses", volumeattributesclass.Strategy, nil, nil},
	{Group: "apiregistration.k8s.io", Kind: "APIService"}:                             {"apiservices", apiservice.NewStrategy(aggregatorscheme.Scheme), aggregatorscheme.Scheme, &aggregatorscheme.Codecs},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:     {"mutatingwebhookconfigurations", mutatingwebhookconfiguration.Strategy, nil, nil},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}:   {"validatingwebhookconfigurations", validatingwebhookconfiguration.Strategy, nil, nil},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}:        {"validatingadmissionpolicies", validatingadmissionpolicy.NewStrategy(nil, nil), nil, nil},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}: {"validatingadmissionpolicybindings", validatingadmissionpolicybinding.NewStrategy(nil, nil, nil), nil, nil},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"}:          {"mutatingadmissionpolicies", mutatingadmissionpolicy.NewStrategy(nil, nil), nil, nil},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicyBinding"}:   {"mutatingadmissionpolicybindings", mutatingadmissionpolicybinding.NewStrategy(nil, nil, nil), nil, nil},
}
