#!/usr/bin/env bash
# Installs the VS Code workbench that workbench_test.go drives: code-server
# (VS Code for the browser, from the npm registry) at the version locked in
# editors/vscode/code-server/, into a folder outside the repository keyed by
# that version:
#   ${CRD_LSP_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/crd-lsp-tools}/code-server-VERSION
# A finished install leaves a stamp (the lock file's hash); when the stamp
# matches, nothing is done. Needs Node 20 and npm, and from apt:
# build-essential python3 pkg-config libkrb5-dev (native modules) and ripgrep.
# The browser (Debian's chromium) is installed by .ci/run, not here.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
lock="$here/code-server/package-lock.json"
version="$(node -p 'require(process.argv[1]).dependencies["code-server"]' "$here/code-server/package.json")"
tools="${CRD_LSP_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/crd-lsp-tools}"
dest="$tools/code-server-$version"
stamp="$dest/.installed"
want="$(sha256sum "$lock" | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$dest/node_modules/.bin/code-server" ]; then
  echo "code-server $version already installed in $dest"
  exit 0
fi

node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" != 20 ]; then
  echo "code-server $version needs Node 20 (found $(node --version))" >&2
  exit 1
fi

rm -rf "$dest"
mkdir -p "$dest"
cp "$here/code-server/package.json" "$lock" "$dest/"

# @vscode/ripgrep's postinstall downloads rg from the internet, which is not
# reachable here: give it the archive it expects, made from Debian's rg, in
# the cache folder it looks in first ($TMPDIR/vscode-ripgrep-cache-VERSION).
# code-server 4.100.3's VS Code locks @vscode/ripgrep 1.15.11, which fetches
# ripgrep v13.0.0-10; change both with the code-server version.
rg_package=1.15.11
rg_asset=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export TMPDIR="$work"
mkdir -p "$work/rg" "$work/vscode-ripgrep-cache-$rg_package"
cp "$(command -v rg)" "$work/rg/rg"
tar -czf "$work/vscode-ripgrep-cache-$rg_package/$rg_asset" -C "$work/rg" rg

# Native modules are built against the installed Node's own headers (no
# download); as root, npm runs install scripts only with unsafe-perm; node-gyp
# may be fetched through npx without a prompt.
export npm_config_nodedir="$(dirname "$(dirname "$(command -v node)")")"
export npm_config_unsafe_perm=true
export npm_config_yes=true
(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error)
"$dest/node_modules/.bin/code-server" --config "$work/config.yaml" --version
echo "$want" >"$stamp"
echo "code-server $version installed in $dest"
