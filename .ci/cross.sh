#!/usr/bin/env bash
# Cross-checks every package for the systems CI cannot run (issue 34):
# Windows and macOS, amd64 and arm64. For each target:
#   go build ./...    the non-test code, with the real compiler;
#   go vet ./...      vet's analyzers, on test files too (vet type-checks
#                     each package's test variant: *_test.go files, e.g. a
#                     syscall field Windows lacks, fail here);
#   go test -c        every package's test binary compiled by the real
#                     compiler and linked (-s -w: no symbols, the link is
#                     most of the cost): what vet's type checker alone does
#                     not see — function bodies left to assembly a target
#                     lacks, linkname and link errors on that architecture.
# Nothing here runs: Windows binaries cannot start under this machine's
# wine, macOS ones not at all (docs/editors.md says what has been run).
# -trimpath, as the release builds (.goreleaser.yaml): the packages compiled
# here for windows and darwin are the release snapshot's too.
# Prints one timing line per target.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="${GOFLAGS:-} -trimpath"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
pkgs=$(go list ./...)
for target in windows/amd64 windows/arm64 darwin/amd64 darwin/arm64; do
  start=$(date +%s)
  export GOOS="${target%/*}" GOARCH="${target#*/}"
  go build ./...
  go vet ./...
  # go test -c writes DIR/<package name>.test: the two "gen" commands
  # would collide, so each gets a folder of its own.
  mkdir -p "$out/a" "$out/b"
  go test -c -ldflags='-s -w' -o "$out/a/" $(echo "$pkgs" | grep -v '/internal/k8srules/gen$') | { grep -v '^?.*\[no test files\]$' || true; }
  go test -c -ldflags='-s -w' -o "$out/b/" ./internal/k8srules/gen | { grep -v '^?.*\[no test files\]$' || true; }
  n=$(ls "$out/a" "$out/b" | grep -c '\.test' || true)
  [ "$GOOS" = windows ] && n=$(ls "$out/a" "$out/b" | grep -c '\.test\.exe$' || true)
  rm -rf "$out/a" "$out/b"
  unset GOOS GOARCH
  echo "cross $target: built, vetted, $n test binaries compiled in $(( $(date +%s) - start ))s"
done
