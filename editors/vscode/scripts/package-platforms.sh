#!/usr/bin/env bash
# Builds platform-specific .vsix files with the crd-lsp server bundled:
# linux/darwin/windows × amd64/arm64, cross-compiled with Go.
# Usage: editors/vscode/scripts/package-platforms.sh [TARGET...]   (from anywhere)
# TARGETs are VS Code's names (linux-x64, darwin-arm64, ...), or "host" for
# this machine's; default: all six.
# The files are written to editors/vscode, or to $VSIX_OUT when set.
# CRD_LSP_SERVER=PATH bundles that binary instead of building one (one
# TARGET only; the test suite uses it to package the server it already built).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${VSIX_OUT:-$here}"
cd "$here"
declare -A goplatform=(
  [linux-x64]=linux:amd64 [linux-arm64]=linux:arm64 [darwin-x64]=darwin:amd64
  [darwin-arm64]=darwin:arm64 [win32-x64]=windows:amd64 [win32-arm64]=windows:arm64
)
# host: this machine's platform, as VS Code names it.
host_target() {
  local os arch
  case "$(uname -s)" in
    Linux) os=linux ;; Darwin) os=darwin ;; MINGW*|MSYS*|CYGWIN*) os=win32 ;; *) os=unknown ;;
  esac
  case "$(uname -m)" in
    x86_64|amd64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; *) arch=unknown ;;
  esac
  echo "$os-$arch"
}
targets=()
for t in "$@"; do
  if [ "$t" = host ]; then targets+=("$(host_target)"); else targets+=("$t"); fi
done
[ ${#targets[@]} -gt 0 ] || targets=(linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64)
for vsce_target in "${targets[@]}"; do
  if [ -z "${goplatform[$vsce_target]:-}" ]; then
    echo "unknown target $vsce_target (one of: ${!goplatform[*]})" >&2
    exit 2
  fi
done
if [ -n "${CRD_LSP_SERVER:-}" ] && [ ${#targets[@]} -ne 1 ]; then
  echo "CRD_LSP_SERVER needs exactly one TARGET" >&2
  exit 2
fi
npm run compile
trap 'rm -rf "$here/bin"' EXIT
for vsce_target in "${targets[@]}"; do
  IFS=: read -r goos goarch <<<"${goplatform[$vsce_target]}"
  exe=crd-lsp; [ "$goos" = windows ] && exe=crd-lsp.exe
  rm -rf bin && mkdir -p "bin/$vsce_target"
  if [ -n "${CRD_LSP_SERVER:-}" ]; then
    cp "$CRD_LSP_SERVER" "bin/$vsce_target/$exe"
  else
    (cd "$repo" && CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -ldflags='-s -w' -o "$here/bin/$vsce_target/$exe" ./cmd/crd-lsp)
  fi
  npx vsce package --no-dependencies --target "$vsce_target" -o "$out/crd-lsp-$vsce_target.vsix"
done
