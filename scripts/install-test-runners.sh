#!/usr/bin/env bash
# Installs the JavaScript test runners that the ahpls_run_tests tests drive
# (tools/testdata/testrun/jest and vitest) with npm ci from their committed
# lock files, each into its own folder of the CI cache (AHPLS_CI_CACHE,
# default ~/.cache/ahpls-ci): testrun-jest, testrun-vitest. A folder whose
# lock file matches the fixture's is kept, so a rerun needs no network; the
# Go tests link node_modules from there into a copy of the fixture and skip
# with a visible message when it is missing. Called from .ci/run.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cache="${AHPLS_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ahpls-ci}"
for runner in jest vitest; do
  src="$repo/tools/testdata/testrun/$runner"
  dst="$cache/testrun-$runner"
  if [ -f "$dst/node_modules/$runner/package.json" ] && cmp -s "$src/package-lock.json" "$dst/package-lock.json" \
    && cmp -s "$src/package.json" "$dst/package.json"; then
    echo "install-test-runners: $runner cached in $dst"
    continue
  fi
  echo "install-test-runners: npm ci $runner into $dst"
  rm -rf "$dst"
  mkdir -p "$dst"
  cp "$src/package.json" "$src/package-lock.json" "$dst/"
  (cd "$dst" && npm ci --no-audit --no-fund --loglevel=error)
done
