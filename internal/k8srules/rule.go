package k8srules

// Rule is one declarative validation rule of a built-in kind, read from a
// `+k8s:` tag in k8s.io/api's types.go.
type Rule struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
	// Path is the JSON field path from the object's root: fields joined by
	// ".", "[*]" for every element of a list and "{*}" for every value of
	// a map (spec.devices.requests[*].name).
	Path string `json:"path"`
	// Rule is one of required, format, minimum, maximum, maxItems,
	// maxBytes, maxLength, enum, unique, union, zeroOrOneOf.
	Rule string `json:"rule"`
	// Arg is the tag's argument: the format's name, the bound, "set" or
	// "map" for unique; for required the Go shape of the field (value,
	// pointer, slice, map).
	Arg string `json:"arg,omitempty"`
	// Each applies the rule to every key ("key") or value ("val") of the
	// list or map at Path rather than to the field itself.
	Each string `json:"each,omitempty"`
	// Pointer says the field is a Go pointer (nil when absent), so its zero
	// value is checked rather than read as unset.
	Pointer bool `json:"pointer,omitempty"`
	// Keys are a unique=map list's key fields.
	Keys []string `json:"keys,omitempty"`
	// Values are an enum's values, or a union's members (JSON names; a
	// member that is not a Go pointer, slice or map ends with "=": set
	// only when not its zero value).
	Values []string `json:"values,omitempty"`
	// Level is "" for a standard tag, "beta" for a +k8s:beta one.
	Level string `json:"level,omitempty"`
	// Source is the tag's place: k8s.io/api@version's file:line.
	Source string `json:"source"`
}
