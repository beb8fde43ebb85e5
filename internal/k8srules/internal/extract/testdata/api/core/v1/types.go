package v1

// PodTemplateSpec stands for core/v1's pod template.
type PodTemplateSpec struct {
	// +k8s:required
	Name string `json:"name"`
}
