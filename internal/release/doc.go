// Package release holds the tests of what a release delivers (tests only):
// the artifacts of the snapshot that .ci/release.sh makes with goreleaser
// (.goreleaser.yaml) are opened and held to what README promises — an
// archive per system and architecture with the right binary, LICENSE,
// NOTICE and the example inside, checksums that match, a VS Code extension
// per platform with that platform's server, the version and commit
// stamped — and README's install section is run as written on the Linux
// archive, with a clean PATH and HOME, offline, and the Linux .vsix is
// installed by VS Code's own installer. `go install …@version` is
// proven from a module proxy made of this commit.
package release
