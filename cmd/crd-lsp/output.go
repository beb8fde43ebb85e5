// This file lists check's --output formats.

package main

// outputFormats are check's --output values.
var outputFormats = []string{"text", "json", "sarif", "github"}

func validOutput(s string) bool {
	for _, f := range outputFormats {
		if s == f {
			return true
		}
	}
	return false
}
