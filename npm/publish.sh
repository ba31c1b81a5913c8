#!/usr/bin/env bash
# Publishes the npm packages npm/build.sh packed, in the one order that never
# leaves a user with an `ahpls` whose binary is missing: the six
# @ahpls/<platform> packages first, `ahpls` (whose optionalDependencies name
# them at the same version) last.
#
#   npm/publish.sh DIR VERSION DIST_TAG [npm publish flags…]
#
# Each tarball is taken by its exact name (DIR/ahpls-<platform>-<VERSION>.tgz,
# then DIR/ahpls-<VERSION>.tgz), never by a glob: `ahpls-*-*.tgz` also
# matches the main package of a pre-release (ahpls-0.2.0-rc.1.tgz). All seven
# must be there before anything is published. DIST_TAG is `latest` for a
# release and `next` for a pre-release, so `npm install ahpls` never gets a
# release candidate. A package whose VERSION is already on the registry is
# skipped, so a release that failed halfway can be run again.
#
# NPM names the npm command (default: npm); the release's dry run
# (scripts/release-dry-run.sh) points it at a stub that records the calls.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 3 ] || { echo "usage: npm/publish.sh DIR VERSION DIST_TAG [npm publish flags…]" >&2; exit 2; }
dir="$1" version="$2" tag="$3"
shift 3
npm="${NPM:-npm}"
# shellcheck source=npm/platforms.sh
. "$root/npm/platforms.sh"

order=()
names=()
for p in "${platforms[@]}"; do
  order+=("$dir/ahpls-$p-$version.tgz")
  names+=("@ahpls/$p")
done
order+=("$dir/ahpls-$version.tgz")
names+=(ahpls)

for t in "${order[@]}"; do
  [ -f "$t" ] || { echo "npm/publish.sh: missing $t; nothing published" >&2; exit 1; }
done

for i in "${!order[@]}"; do
  if $npm view "${names[$i]}@$version" version >/dev/null 2>&1; then
    echo "npm/publish.sh: ${names[$i]}@$version is already published; skipped"
    continue
  fi
  echo "npm/publish.sh: ${names[$i]}@$version (dist-tag $tag)"
  $npm publish "${order[$i]}" --tag "$tag" --access public "$@"
done
