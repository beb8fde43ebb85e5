// This file writes check's findings as GitHub Actions workflow commands
// (--output github).

package main

import (
	"path/filepath"
	"strconv"
	"strings"
)

// githubAnnotation is a finding as a GitHub Actions workflow command
// (::error file=…,line=…,col=…::message), which the runner turns into an
// annotation on the file's line in the pull request. Lines and columns
// are 1-based; columns count UTF-16 code units, as the annotations'
// JavaScript does, and are given only for a one-line range (GitHub uses
// col/endColumn only then). Data is escaped as the runner requires (%,
// CR, LF), property values also ':' and ','.
func githubAnnotation(path string, f finding) string {
	level := "notice"
	switch f.diag.Severity {
	case "error":
		level = "error"
	case "warning":
		level = "warning"
	}
	var b strings.Builder
	b.WriteString("::" + level + " file=" + githubProperty(filepath.ToSlash(path)))
	start, end := f.utf16.Start, f.utf16.End
	b.WriteString(",line=" + strconv.Itoa(start.Line+1))
	b.WriteString(",endLine=" + strconv.Itoa(end.Line+1))
	if end.Line == start.Line {
		b.WriteString(",col=" + strconv.Itoa(start.Character+1))
		b.WriteString(",endColumn=" + strconv.Itoa(max(end.Character, start.Character+1)))
	}
	title := "crd-lsp"
	if f.diag.Code != "" {
		title += " " + f.diag.Code
	}
	b.WriteString(",title=" + githubProperty(title))
	msg := f.diag.Message
	if f.diag.Field != "" {
		msg = f.diag.Field + ": " + msg
	}
	b.WriteString("::" + githubData(msg) + "\n")
	return b.String()
}

var (
	githubDataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	githubPropertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func githubData(s string) string     { return githubDataEscaper.Replace(s) }
func githubProperty(s string) string { return githubPropertyEscaper.Replace(s) }
