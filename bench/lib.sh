# Sourced by bench/run.sh and bench/side-by-side.sh (run from the repository
# root): builds crd-lsp and crdbench into the bench cache and generates the
# workloads there (never in the repository).
#   CRD_LSP_BENCH_CACHE  cache folder (default ~/.cache/crd-lsp-bench)
#   CRD_LSP_CORPUS       the shared corpus (default ../shared/corpus)
#   BENCH_RUNS           runs per check/first-diagnostic figure (default 3; medians)
#   BENCH_EDITS          measured keystroke edits (default 200)
BENCH_CACHE="${CRD_LSP_BENCH_CACHE:-$HOME/.cache/crd-lsp-bench}"
BENCH_BIN="$BENCH_CACHE/bin"
BENCH_WORK="$BENCH_CACHE/work"
BENCH_CORPUS="${CRD_LSP_CORPUS:-$(pwd)/../shared/corpus}"
BENCH_RUNS="${BENCH_RUNS:-3}"
BENCH_EDITS="${BENCH_EDITS:-200}"

bench_prepare() {
  if [ ! -d "$BENCH_CORPUS/crds/provider-aws-full" ]; then
    echo "bench: the shared corpus is not at $BENCH_CORPUS (set CRD_LSP_CORPUS)" >&2
    exit 1
  fi
  mkdir -p "$BENCH_BIN"
  go build -o "$BENCH_BIN/crd-lsp" ./cmd/crd-lsp
  # -buildvcs=false: the binary (whose hash stamps the workloads) changes only with its source
  go build -buildvcs=false -o "$BENCH_BIN/crdbench" ./bench/crdbench
  "$BENCH_BIN/crdbench" gen -work "$BENCH_WORK" -corpus "$BENCH_CORPUS"
  echo "# machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); crd-lsp $(git describe --always --dirty 2>/dev/null || echo '?')"
}

# bench_crd_lsp_figures prints crd-lsp's own end-to-end figures.
bench_crd_lsp_figures() {
  "$BENCH_BIN/crdbench" check -work "$BENCH_WORK" -runs "$BENCH_RUNS" -crd-lsp "$BENCH_BIN/crd-lsp" "$@"
}
