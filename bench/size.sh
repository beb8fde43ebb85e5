#!/usr/bin/env bash
# What the binary's size costs in memory (issue 35): the memory targets
# are dominated by crd-lsp's resident file pages, not its heap. Builds
# crd-lsp as the release does (-trimpath, -s -w) and copies it with cat,
# as a release archive's extraction writes it (a file fresh from the Go
# linker stays in large page-cache folios and maps more), then prints
#   - the file's sections (text, rodata, pclntab);
#   - `crd-lsp version`'s peak RSS (nothing but package initialization),
#     SIZE_RUNS times, and what the package inits allocate (inittrace);
#   - an initialized, idle editor session's RSS split (crdbench idle);
#   - what internal/kubevalidation links, import by import (bench/binsize).
#   bench/size.sh          SIZE_RUNS (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${SIZE_RUNS:-5}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$out/linked" ./cmd/crd-lsp
cat "$out/linked" >"$out/crd-lsp" && chmod +x "$out/crd-lsp" && rm "$out/linked"
CGO_ENABLED=0 go build -trimpath -o "$out/crd-lsp.sym" ./cmd/crd-lsp # binsize reads its symbols
go build -o "$out/crdbench" ./bench/crdbench
echo "# crd-lsp $(git describe --always --dirty 2>/dev/null || echo '?'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# file $(stat -c %s "$out/crd-lsp") bytes; sections (bytes):"
if command -v size >/dev/null; then
  size -A "$out/crd-lsp" | awk '$1 ~ /^\.(text|rodata|gopclntab|noptrdata|data|typelink)$/ {printf "#   %-11s %10d\n", $1, $2}'
else
  echo "#   (binutils' size is not installed; sections skipped)"
fi
if [ -x /usr/bin/time ]; then
  peaks=$(for _ in $(seq "$RUNS"); do /usr/bin/time -f %M "$out/crd-lsp" version 2>&1 >/dev/null | tail -1; done | sort -n | tr '\n' ' ')
  echo "version peak RSS (KiB, sorted, $RUNS runs): $peaks"
else
  echo "version peak RSS: /usr/bin/time is not installed; skipped"
fi
GODEBUG=inittrace=1 "$out/crd-lsp" version 2>&1 >/dev/null | awk '/^init /{n++; by+=$8; al+=$10; print $8, $10, $2} END {printf "package inits: %d, %.1f MB allocated in %d allocations; the ten that allocate most (bytes, allocs, package):\n", n, by/1e6, al > "/dev/stderr"}' | sort -rn | head -10
"$out/crdbench" idle -runs "$RUNS" -- "$out/crd-lsp" serve
go run ./bench/binsize -bin "$out/crd-lsp.sym" \
  -group 'all registry strategies and the Service storage=/pkg/registry/|kube-aggregator/pkg/registry' \
  -group 'Service storage and allocators=/registry/core/service/' \
  -group 'admissionregistration strategies=/registry/admissionregistration/' \
  -group 'DRA strategies=/registry/resource/' \
  -group 'install packages=/install$'
