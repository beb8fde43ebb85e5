#!/usr/bin/env bash
# A release's VS Code extension for one platform, with the release's binary
# inside: goreleaser's post-build hook (.goreleaser.yaml) runs it once per
# target, maybe several at once, so the packaging is serialised by a lock.
# Usage: release-vsix.sh BINARY GOOS GOARCH VERSION DIST
# Writes DIST/crd-lsp_VERSION_TARGET.vsix (TARGET as VS Code names it:
# linux-x64, win32-arm64, …).
set -euo pipefail
bin="$1" goos="$2" goarch="$3" version="$4" dist="$5"
here="$(cd "$(dirname "$0")/.." && pwd)"
case "$goos" in windows) os=win32 ;; *) os="$goos" ;; esac
case "$goarch" in amd64) arch=x64 ;; *) arch="$goarch" ;; esac
target="$os-$arch"
mkdir -p "$dist"
dist="$(cd "$dist" && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
(
  flock 9
  if [ ! -f "$here/node_modules/@vscode/vsce/package.json" ] || [ ! -f "$here/node_modules/typescript/package.json" ]; then
    (cd "$here" && npm ci --no-audit --no-fund >&2)
  fi
  CRD_LSP_SERVER="$bin" VSIX_OUT="$out" bash "$here/scripts/package-platforms.sh" "$target" >&2
) 9>"${TMPDIR:-/tmp}/crd-lsp-release-vsix.lock"
mv "$out/crd-lsp-$target.vsix" "$dist/crd-lsp_${version}_${target}.vsix"
