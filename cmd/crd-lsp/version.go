// This file defines crd-lsp version: the build stamp from -ldflags, else from
// the build information Go embeds.

package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// A release build sets these with
//
//	-ldflags "-X main.version=v1.2.3 -X main.commit=<sha> -X main.date=<RFC 3339 time>"
//
// Left empty, they come from what Go embeds in the binary: the module's
// version (go install …@v1.2.3, or the VCS-derived pseudo-version of a
// build from a clone) and the VCS stamp (vcs.revision, vcs.time,
// vcs.modified) of a build from a clone.
var (
	version = ""
	commit  = ""
	date    = ""
)

// devVersion is the version of a build that knows no better (go build
// -buildvcs=false outside a module version).
const devVersion = "0.1.0-dev"

// buildStamp is what `crd-lsp version` and --version say.
type buildStamp struct {
	Version  string
	Commit   string // "" when unknown
	Time     string // the commit's time (vcs.time) or the release's date
	Modified bool   // built from a work tree with uncommitted changes
}

// stamp reads the -ldflags values, else the build information Go embeds.
func stamp() buildStamp {
	return stampFrom(version, commit, date, debug.ReadBuildInfo)
}

func stampFrom(version, commit, date string, read func() (*debug.BuildInfo, bool)) buildStamp {
	b := buildStamp{Version: version, Commit: commit, Time: date}
	if info, ok := read(); ok && info != nil {
		if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			b.Version = info.Main.Version
		}
		if commit == "" { // the VCS stamp describes the build only when no release value overrides it
			for _, s := range info.Settings {
				switch s.Key {
				case "vcs.revision":
					b.Commit = s.Value
				case "vcs.time":
					if b.Time == "" {
						b.Time = s.Value
					}
				case "vcs.modified":
					b.Modified = s.Value == "true"
				}
			}
		}
	}
	if b.Version == "" {
		b.Version = devVersion
	}
	return b
}

// String is the text of `crd-lsp version`.
func (b buildStamp) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "crd-lsp %s\n", b.Version)
	c := b.Commit
	if c == "" {
		c = "unknown"
	} else if b.Modified {
		c += " (with uncommitted changes)"
	}
	fmt.Fprintf(&s, "commit: %s\n", c)
	if b.Time != "" {
		fmt.Fprintf(&s, "date: %s\n", b.Time)
	}
	fmt.Fprintf(&s, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return s.String()
}
