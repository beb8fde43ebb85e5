#!/usr/bin/env bash
# The release snapshot: goreleaser at the pinned version, built from the Go
# module proxy into the user cache folder (minutes the first time, kept
# between runs), runs .goreleaser.yaml in snapshot mode into dist/:
# archives for linux/darwin/windows × amd64/arm64, their checksums and a
# platform .vsix per target. internal/release's test opens what it made.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v2.15.1
bin="${XDG_CACHE_HOME:-$HOME/.cache}/crd-lsp-test/goreleaser-$version"
if [ ! -x "$bin" ]; then
  start=$(date +%s)
  tmp="$(mktemp -d)"
  GOBIN="$tmp" go install "github.com/goreleaser/goreleaser/v2@$version"
  mkdir -p "$(dirname "$bin")"
  mv "$tmp/goreleaser" "$bin"
  rm -rf "$tmp"
  echo "goreleaser $version built in $(( $(date +%s) - start ))s"
fi
# goreleaser reads the commit only where git names a remote: a clone
# without one gets the project's public address, for goreleaser's own git
# calls only (the repository's configuration is left as it is).
if [ -z "$(git remote)" ]; then
  export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/crd-lsp/crd-lsp.git
fi
start=$(date +%s)
log="$(mktemp)"
"$bin" release --snapshot --clean "$@" >"$log" 2>&1 || { cat "$log"; rm -f "$log"; exit 1; }
mv "$log" dist/goreleaser.log
echo "release snapshot in $(( $(date +%s) - start ))s:"
(cd dist && ls -l *.tar.gz *.zip *.vsix checksums.txt | awk '{printf "  %s %d KiB\n", $NF, $5/1024}')
