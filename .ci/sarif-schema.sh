#!/usr/bin/env bash
# Puts the SARIF 2.1.0 JSON schema (as @microsoft/jest-sarif ships it from
# Microsoft's sarif-sdk: sarif-2.1.0-rtm.5.json) outside the repository
# and prints its path; `crd-lsp check --output sarif` is validated against
# it (cmd/crd-lsp, CRD_LSP_SARIF_SCHEMA). Kept between runs.
set -euo pipefail
dir="${XDG_CACHE_HOME:-$HOME/.cache}/crd-lsp-ci/sarif"
file="$dir/sarif-2.1.0-rtm.5.json"
if [ ! -s "$file" ]; then
  mkdir -p "$dir"
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent @microsoft/jest-sarif@1.0.0-beta.0 >/dev/null &&
    tar xzf microsoft-jest-sarif-1.0.0-beta.0.tgz package/lib/schemas/sarif-2.1.0-rtm.5.json)
  mv "$tmp/package/lib/schemas/sarif-2.1.0-rtm.5.json" "$file"
  rm -rf "$tmp"
fi
echo "$file"
