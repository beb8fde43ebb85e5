#!/usr/bin/env bash
# The speed and memory figures crd-lsp is held to: its Go benchmarks, then
# the end-to-end figures of issue 15 measured on the built binary over
# generated workloads (bench/crdbench; workloads and binaries are kept in
# ~/.cache/crd-lsp-bench, see bench/lib.sh). Not run in CI.
# Run from anywhere: bench/run.sh [extra go test flags]
# Each Benchmark line is a Go benchmark result; the custom metrics
# (p50/p99 latencies) are printed by the benchmarks themselves.
# bench/side-by-side.sh compares with kubeconform and yaml-language-server.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
run() { go test "$1" -run '^$' -bench "$2" -benchmem "${@:3}" | grep -E '^Benchmark'; }
echo "# keystroke → published diagnostics, through the real server (includes the 15 ms debounce)"
run ./internal/lsp KeystrokeToDiagnostics -benchtime 50x "$@"
echo "# analysis of one keystroke: a Deployment; a large real Composition (checks, render, validation)"
run ./internal/analysis 'DiagnoseDeployment|DiagnoseComposition' -benchtime 50x "$@"
echo "# analysis of a keystroke on a pipeline running a real function (warm process), the same without it, and the first analysis (process start)"
run ./internal/analysis 'DiagnosePipeline(Warm|Native)' -benchtime 200x "$@"
run ./internal/analysis DiagnosePipelineFirst -benchtime 20x "$@"
echo "# the same through the server: keystroke → diagnostics with the function process warm, and a fresh server's first diagnostics (starting the process)"
run ./internal/lsp KeystrokeFunctions -benchtime 200x "$@"
run ./internal/lsp FirstRenderFunctions -benchtime 20x "$@"
echo "# hover and completion latency on a 3,000-line file"
run ./internal/analysis EditingHelp3000Lines -benchtime 300x "$@"
echo "# schema store: indexing every provider-aws CRD, re-indexing one file, validators"
run ./internal/schemas 'IndexAWSFull|ReindexOneFile|FirstValidate|ValidateWarm' "$@"
echo "# hostile inputs (issue 16): the slowest hover after each, the server's peak RSS"
run ./internal/lsp HostileInputs -benchtime 1x "$@"
echo "# a live cluster (issue 23): 500 real CRDs in a real API server; first diagnostic, cold and warm cache; memory"
run ./internal/lsp 'Cluster$' -benchtime 3x -timeout 40m "$@"

echo
echo "# end to end (issue 15): the crd-lsp binary on generated workloads"
bench_prepare
bench_crd_lsp_figures
echo "# keystroke → publishDiagnostics on a 300-document file of S3 Buckets (one value flipped per edit; every edit's diagnostics checked)"
"$BENCH_BIN/crdbench" keystroke -work "$BENCH_WORK" -edits "$BENCH_EDITS" -name crd-lsp -- "$BENCH_BIN/crd-lsp" serve
"$BENCH_BIN/crdbench" firstdiag -work "$BENCH_WORK" -runs "$BENCH_RUNS" -- "$BENCH_BIN/crd-lsp" serve
echo "# first diagnostics on a built-in kind (issue 32): issue 32's Deployment alone in a fresh server"
"$BENCH_BIN/crdbench" builtindiag -runs "$BENCH_RUNS" -- "$BENCH_BIN/crd-lsp" serve
