package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widget is a kind with every shape of tag.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec"`
	Status            WidgetStatus `json:"status,omitempty"`
}

// WidgetList is not a kind.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// Unregistered has no generated validation in k8s.io/kubernetes.
type Unregistered struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +k8s:required
	Name string `json:"name"`
}

type Mode string

// +k8s:enum
type Color string

const (
	Red  Color = "Red"
	Blue Color = "Blue"
)

type Inlined struct {
	// +k8s:format=k8s-long-name
	Owner string `json:"owner,omitempty"`
}

type WidgetSpec struct {
	Inlined `json:",inline"`

	// +k8s:required
	// +k8s:format=k8s-short-name
	Name string `json:"name"`
	// +k8s:beta(since: "1.37")=+k8s:required
	Count *int32 `json:"count"`
	// +k8s:alpha(since: "1.37")=+k8s:required
	AlphaOnly string `json:"alphaOnly"`
	// +k8s:ifEnabled(SomeGate)=+k8s:required
	Gated string `json:"gated"`
	// +featureGate=SomeGate
	// +k8s:required
	GatedField string `json:"gatedField"`
	// +k8s:required
	Defaulted string `json:"defaulted"`
	// +k8s:required
	// +default="x"
	DefaultMarker string `json:"defaultMarker"`
	// +k8s:required
	// +k8s:customValidation
	Custom string `json:"custom"`
	// +k8s:immutable
	// +k8s:update=NoModify
	Frozen string `json:"frozen"`
	// +k8s:minimum=1
	// +k8s:maximum=10 # a comment
	Size  int32 `json:"size"`
	Color Color `json:"color,omitempty"`
	// +k8s:listType=map
	// +k8s:listMapKey=name
	// +k8s:maxItems=4
	Items []Item `json:"items"`
	// +k8s:listType=set
	Tags []string `json:"tags"`
	// +k8s:eachKey=+k8s:format=k8s-short-name
	// +k8s:eachVal=+k8s:maxBytes=8
	Labels map[string]string `json:"labels"`
	// +k8s:opaqueType
	Opaque *Item `json:"opaque"`
	// +k8s:subfield(name)=+k8s:format=k8s-long-name
	Ref Item `json:"ref"`
	// +k8s:optional
	// +k8s:unionMember
	A *Item `json:"a"`
	// +k8s:optional
	// +k8s:unionMember
	B string `json:"b"`
	// +k8s:zeroOrOneOfMember
	C []string `json:"c"`
	// +k8s:zeroOrOneOfMember
	D        map[string]string      `json:"d"`
	Template corev1.PodTemplateSpec `json:"template"`
	Self     *WidgetSpec            `json:"self"`
	Private  string                 `json:"-"`
}

type Item struct {
	// +k8s:required
	Name string `json:"name"`
}

type WidgetStatus struct {
	// +k8s:required
	Phase string `json:"phase"`
}
