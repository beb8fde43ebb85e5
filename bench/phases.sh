#!/usr/bin/env bash
# Where crd-lsp check's CPU goes, phase by phase (issue 35): runs the built
# binary on a generated workload with CRD_LSP_CPUPROFILE, RUNS times with a
# warm decoded-CRD cache, and prints each phase's share of the samples
# (cumulative, from go tool pprof). Phases that are the libraries' own
# work (kube-openapi, CEL, apiextensions-apiserver's create path, yaml.v3)
# are marked "library", crd-lsp's own "crd-lsp"; GC is the runtime's.
#   bench/phases.sh [WORKLOAD]   (default mrs-1000-files; e.g. mrs-10000-one-file.yaml)
#   PHASES_RUNS (default 8), PHASES_CRDS (default schemas-50)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_prepare >/dev/null
WL="${1:-mrs-1000-files}"
RUNS="${PHASES_RUNS:-8}"
CRDS="${PHASES_CRDS:-schemas-50}"
out="$BENCH_CACHE/phases"
rm -rf "$out" && mkdir -p "$out"
export CRD_LSP_SCHEMA_CACHE="$out/schema-cache"
"$BENCH_BIN/crd-lsp" check --schemas "$BENCH_WORK/$CRDS" "$BENCH_WORK/$WL" >/dev/null # fills the cache
for i in $(seq "$RUNS"); do
  CRD_LSP_CPUPROFILE="$out/cpu.$i" "$BENCH_BIN/crd-lsp" check --schemas "$BENCH_WORK/$CRDS" "$BENCH_WORK/$WL" >/dev/null
done
echo "# crd-lsp check $CRDS $WL, warm decoded cache, $RUNS runs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
top=$(go tool pprof -top -cum -nodecount=100000 "$BENCH_BIN/crd-lsp" "$out"/cpu.* 2>/dev/null)
grep -m1 'Total samples' <<<"$top"
share() { # share OWNER LABEL REGEXP: the cumulative share of the first function matching
  local line
  line=$(grep -E -m1 "$3" <<<"$top" || true)
  printf '%-8s %-58s %s\n' "$1" "$2" "$(awk '{print $5}' <<<"${line:-0 0 0 0 0%}")"
}
share crd-lsp "whole per-document path (parse + Diagnose)" ' main\.diagnosePart$'
share mixed "  position-aware parse (yaml.v3 nodes; spans: crd-lsp)" 'document\.ParsePart$'
share crd-lsp "  conversion to the object kube-openapi reads" 'document\.\(\*Doc\)\.Object$'
share library "  OpenAPI validation (kube-openapi)" 'validation\.ValidateCustomResource$'
share library "  CEL rules (cel-go via apiextensions-apiserver)" 'cel\.\(\*Validator\)\.Validate$'
share library "  ObjectMeta: read" 'objectmeta\.GetObjectMetaWithOptions$'
share library "  ObjectMeta: API server rules" 'ValidateObjectMetaDeclaratively$'
share library "  ObjectMeta: coercion, embedded resources" 'objectmeta\.CoerceWithOptions$'
share library "  defaulting" 'defaulting\.Default$'
share library "  pruning unknown fields" 'pruning\.PruneWithOptions$'
share library "  list-map and set uniqueness" 'listtype\.ValidateListSetsAndMaps$'
share crd-lsp "  nulls the API server drops (placed on the key)" 'schemas\.prunedNulls$'
share crd-lsp "  copy of the object (the create path mutates it)" 'schemas\.deepCopyJSON$'
share library "building validators (once per kind and process)" 'schemas\.\(\*versionValidator\)\.build$'
share library "  of which CEL compilation" 'cel\.NewValidator$'
share crd-lsp "decoded-CRD cache read (protobuf)" 'schemas\.\(\*diskCache\)\.load$'
share crd-lsp "loading the workspace (files, built-in index)" 'loader\.Load$'
share runtime "GC, background workers" 'runtime\.gcBgMarkWorker$'
share runtime "GC, assists charged to allocating code" 'runtime\.gcAssistAlloc$'
