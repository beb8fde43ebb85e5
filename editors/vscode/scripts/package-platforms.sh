#!/usr/bin/env bash
# Builds platform-specific .vsix files with the crd-lsp server bundled:
# linux/darwin/windows × amd64/arm64, cross-compiled with Go.
# Usage: editors/vscode/scripts/package-platforms.sh   (from anywhere)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$here"
npm run compile
for target in linux-x64:linux:amd64 linux-arm64:linux:arm64 darwin-x64:darwin:amd64 darwin-arm64:darwin:arm64 win32-x64:windows:amd64 win32-arm64:windows:arm64; do
  IFS=: read -r vsce_target goos goarch <<<"$target"
  node_platform="${vsce_target%-*}"; node_arch="${vsce_target#*-}"
  exe=crd-lsp; [ "$goos" = windows ] && exe=crd-lsp.exe
  rm -rf bin && mkdir -p "bin/$node_platform-$node_arch"
  (cd "$repo" && CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -ldflags='-s -w' -o "$here/bin/$node_platform-$node_arch/$exe" ./cmd/crd-lsp)
  npx vsce package --no-dependencies --target "$vsce_target" -o "crd-lsp-$vsce_target.vsix"
done
rm -rf bin
