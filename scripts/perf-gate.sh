#!/usr/bin/env bash
# The perf regression gate (#42): builds ahpls at the base commit named in
# .ci/perf-base and at the work tree, and runs internal/perfgate, which
# measures both paired (A B A B ...) in whole-process CPU and fails when
# the work tree costs more than PERF_LIMIT (1.25) times the base on `check`,
# the first scan, edit → diagnostics or start-up.
#
#   scripts/perf-gate.sh                  the gate, as .ci/run runs it
#   scripts/perf-gate.sh --self           the base against itself (false alarms)
#   scripts/perf-gate.sh --slowdown 1.5   the work tree built with a CPU
#                                         slowdown of 1.5× (tag perfgate_slowdown):
#                                         must fail
set -euo pipefail
cd "$(dirname "$0")/.."
mode=gate
factor=""
case "${1:-}" in
  --self) mode=self ;;
  --slowdown) mode=slow; factor="${2:?--slowdown needs a factor}" ;;
  "") ;;
  *) echo "usage: $0 [--self | --slowdown FACTOR]" >&2; exit 2 ;;
esac
base="$(tr -d '[:space:]' < .ci/perf-base)"
if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
  echo "perf gate: the base commit $base (.ci/perf-base) is not in this clone; fetching it"
  git fetch --quiet origin "$base" || { echo "perf gate: cannot get $base; a shallow clone needs it fetched" >&2; exit 1; }
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
# The base's binary is kept by commit and Go version (-trimpath: the same
# build whatever folder it was unpacked in, so the build cache serves it);
# both sides are built without cgo, as `make build` and the releases are.
cache="${HOME:-/tmp}/.cache/ahpls-ci/perf-base/$base-$(go env GOVERSION)-nocgo"
if [ ! -x "$cache/ahpls" ]; then
  mkdir -p "$tmp/base" "$cache"
  git archive "$base" | tar -x -C "$tmp/base"
  (cd "$tmp/base" && CGO_ENABLED=0 go build -trimpath -o "$cache/ahpls.new.$$" ./cmd/ahpls)
  mv "$cache/ahpls.new.$$" "$cache/ahpls"
fi
cp "$cache/ahpls" "$tmp/ahpls-base"
case "$mode" in
  gate) CGO_ENABLED=0 go build -trimpath -o "$tmp/ahpls-cand" ./cmd/ahpls ;;
  self) cp "$tmp/ahpls-base" "$tmp/ahpls-cand" ;;
  slow) CGO_ENABLED=0 go build -trimpath -tags perfgate_slowdown -o "$tmp/ahpls-cand" ./cmd/ahpls
        export AHPLS_PERF_SLOWDOWN="$factor" ;;
esac
go build -o "$tmp/perfgate" ./internal/perfgate
echo "perf gate: base $base, built in $(($(date +%s) - start))s; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
"$tmp/perfgate" -base "$tmp/ahpls-base" -cand "$tmp/ahpls-cand" -pairs "${PERF_PAIRS:-5}" -limit "${PERF_LIMIT:-1.25}" -work "$tmp"
