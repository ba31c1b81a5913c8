#!/usr/bin/env bash
# The npm publish order (npm/publish.sh), with npm replaced by a stub that
# records its calls: the six platform packages first, `ahpls` last, each
# under the dist-tag asked for, for a release and a pre-release version (whose
# main tarball ahpls-0.2.0-rc.1.tgz a glob `ahpls-*-*.tgz` would take for a
# platform package); a missing tarball publishes nothing. Seconds; called by
# scripts/release-dry-run.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/ahpls-npm-publish.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
cat >"$scratch/npm" <<'STUB'
#!/bin/sh
# view: nothing is published yet; publish: record the tarball and flags.
[ "$1" = view ] && exit 1
echo "$*" >>"$NPM_LOG"
STUB
chmod 755 "$scratch/npm"
. "$root/npm/platforms.sh"

fail() { echo "test-npm-publish: $*" >&2; exit 1; }
for case in 0.2.0:latest 0.2.0-rc.1:next; do
  version="${case%%:*}" tag="${case#*:}"
  dist="$scratch/dist-$version"
  mkdir -p "$dist"
  # The seven tarballs plus an older version's, which must not be published.
  for p in "${platforms[@]}"; do touch "$dist/ahpls-$p-$version.tgz" "$dist/ahpls-$p-0.1.0.tgz"; done
  touch "$dist/ahpls-$version.tgz" "$dist/ahpls-0.1.0.tgz"
  log="$scratch/log-$version"
  : >"$log"
  NPM_LOG="$log" NPM="$scratch/npm" "$root/npm/publish.sh" "$dist" "$version" "$tag" --provenance >/dev/null
  want=""
  for p in "${platforms[@]}"; do want+="publish $dist/ahpls-$p-$version.tgz --tag $tag --access public --provenance"$'\n'; done
  want+="publish $dist/ahpls-$version.tgz --tag $tag --access public --provenance"$'\n'
  got="$(cat "$log")"$'\n'
  [ "$got" = "$want" ] || fail "$version: want the calls
$want
got
$got"
  echo "npm publish order for $version: 6 platform packages, then ahpls, all under dist-tag $tag"

  # A missing platform tarball: nothing at all is published.
  rm "$dist/ahpls-win32-arm64-$version.tgz"
  : >"$log"
  if NPM_LOG="$log" NPM="$scratch/npm" "$root/npm/publish.sh" "$dist" "$version" "$tag" >/dev/null 2>&1; then
    fail "$version: publish.sh succeeded without ahpls-win32-arm64-$version.tgz"
  fi
  [ ! -s "$log" ] || fail "$version: publish.sh published with a tarball missing: $(cat "$log")"
done
echo "test-npm-publish: ok"
