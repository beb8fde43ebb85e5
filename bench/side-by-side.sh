#!/usr/bin/env bash
# crd-lsp side by side with kubeconform v0.7.0 (check throughput and peak
# RSS) and yaml-language-server 2.0.0 (keystroke → diagnostics), on the
# same generated inputs, in one run. Installs both into
# ~/.cache/crd-lsp-bench when missing (Go module proxy, npm). Not run in CI.
#
# kubeconform reads JSON Schemas crdbench converts from the same CRDs
# (bench/jsonschema: unknown fields are errors, as with kubectl's strict
# field validation; no CEL, defaulting or metadata rules, which JSON Schema
# cannot say) and runs with -strict (duplicate keys are errors too).
# The library floor (crdbench floor-child) is what the libraries crd-lsp
# validates with cost for the same workload with no crd-lsp code running.
# yaml-language-server is configured as a user would: yaml.schemas maps
# the Bucket CRD's converted JSON Schema to the keystroke file.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

KUBECONFORM="$BENCH_BIN/kubeconform"
if ! go version -m "$KUBECONFORM" 2>/dev/null | grep -Eq 'mod[[:space:]]+github.com/yannh/kubeconform[[:space:]]+v0\.7\.0'; then
  echo "# installing kubeconform v0.7.0 into $BENCH_BIN"
  GOBIN="$BENCH_BIN" go install github.com/yannh/kubeconform/cmd/kubeconform@v0.7.0
fi
YAMLLS_DIR="$BENCH_CACHE/yamlls"
YAMLLS="$YAMLLS_DIR/node_modules/yaml-language-server/bin/yaml-language-server"
if [ "$(node -p "require('$YAMLLS_DIR/node_modules/yaml-language-server/package.json').version" 2>/dev/null)" != "2.0.0" ]; then
  echo "# installing yaml-language-server 2.0.0 into $YAMLLS_DIR"
  mkdir -p "$YAMLLS_DIR"
  npm install --prefix "$YAMLLS_DIR" --no-audit --no-fund --loglevel=error yaml-language-server@2.0.0
fi

bench_prepare
echo "# node $(node --version) (yaml-language-server 2.0.0 declares node >= 22.13; it runs on this one)"
bench_crd_lsp_figures -kubeconform "$KUBECONFORM" -floor -cold

echo "# keystroke → publishDiagnostics on a 300-document file of S3 Buckets, the same file and edits for both servers"
c=$("$BENCH_BIN/crdbench" keystroke -work "$BENCH_WORK" -edits "$BENCH_EDITS" -name crd-lsp -- "$BENCH_BIN/crd-lsp" serve)
echo "$c"
y=$("$BENCH_BIN/crdbench" keystroke -work "$BENCH_WORK" -edits "$BENCH_EDITS" -yamlls -name yaml-language-server -- node "$YAMLLS" --stdio)
echo "$y"
p50() { sed -E 's/.* p50 ([0-9.]+) ms.*/\1/'; }
cpu() { sed -E 's/.*server CPU ([0-9.]+) ms\/edit.*/\1/'; }
awk -v c="$(p50 <<<"$c")" -v y="$(p50 <<<"$y")" -v cc="$(cpu <<<"$c")" -v yc="$(cpu <<<"$y")" 'BEGIN {
  printf "keystroke crd-lsp ÷ yaml-language-server: p50 %.2f× (target ≤ 0.1×), server CPU per edit %.2f×\n", c / y, cc / yc }'
