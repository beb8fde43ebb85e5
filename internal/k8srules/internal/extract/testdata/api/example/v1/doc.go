// +k8s:openapi-gen=true
// +groupName=example.k8s.io

// Package v1 is a test fixture of the extractor.
package v1
