#!/usr/bin/env bash
# The speed and memory figures crd-lsp is held to, from its Go benchmarks.
# Run from anywhere: bench/run.sh [extra go test flags]
# Each line is a Go benchmark result; the custom metrics (p50/p99 latencies)
# are printed by the benchmarks themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
run() { go test "$1" -run '^$' -bench "$2" -benchmem "${@:3}" | grep -E '^Benchmark'; }
echo "# keystroke → published diagnostics, through the real server (includes the 15 ms debounce)"
run ./internal/lsp KeystrokeToDiagnostics -benchtime 50x "$@"
echo "# analysis of one keystroke: a Deployment; a large real Composition (checks, render, validation)"
run ./internal/analysis 'DiagnoseDeployment|DiagnoseComposition' -benchtime 50x "$@"
echo "# analysis of a keystroke on a pipeline running a real function (warm process), the same without it, and the first analysis (process start)"
run ./internal/analysis 'DiagnosePipeline(Warm|Native)' -benchtime 200x "$@"
run ./internal/analysis DiagnosePipelineFirst -benchtime 20x "$@"
echo "# hover and completion latency on a 3,000-line file"
run ./internal/analysis EditingHelp3000Lines -benchtime 300x "$@"
echo "# schema store: indexing every provider-aws CRD, re-indexing one file, validators"
run ./internal/schemas 'IndexAWSFull|ReindexOneFile|FirstValidate|ValidateWarm' "$@"
