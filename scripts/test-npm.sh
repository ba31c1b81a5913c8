#!/usr/bin/env bash
# The npm route end to end, as a user gets it: packs every npm package
# (npm/build.sh: `ahpls` and the six @ahpls/<platform> packages), installs the
# packed tarballs of `ahpls` and this machine's platform package into a
# scratch project, and runs `npx ahpls check` there on the editor fixture
# workspace, which must report its broken skill name, then `npx ahpls mcp`
# (initialize and tools/list: the package's ahpls-mcp) and `npx ahpls
# version`. Needs node and npm; the other platform packages are optional
# dependencies npm skips. Called from .ci/run.
#
#   scripts/test-npm.sh [--tarballs DIR --version V]
#
# With --tarballs the seven tarballs of version V are taken from DIR (a
# release's, scripts/release.sh verify) instead of packed here, and `ahpls
# version` must print V.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
want=""
if [ "${1:-}" = --tarballs ]; then
  [ $# -eq 4 ] && [ "$3" = --version ] || { echo "usage: test-npm.sh [--tarballs DIR --version V]" >&2; exit 2; }
  want="$4"
  dir="$(cd "$2" && pwd)"
  tarballs="$(ls "$dir"/ahpls-*"$want".tgz | grep -E "/ahpls-([a-z0-9]+-[a-z0-9]+-)?$want\.tgz\$")"
else
  tarballs="$(bash "$root/npm/build.sh")"
fi
echo "$tarballs" | sed 's|.*/|packed: |'
[ "$(echo "$tarballs" | wc -l)" -eq 7 ] || { echo "test-npm: want 7 tarballs" >&2; exit 1; }

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) host=linux-x64 ;; Linux-aarch64) host=linux-arm64 ;;
  Darwin-x86_64) host=darwin-x64 ;; Darwin-arm64) host=darwin-arm64 ;;
  *) echo "test-npm: no platform package for $(uname -sm)" >&2; exit 1 ;;
esac
main="$(echo "$tarballs" | grep '/ahpls-[0-9][^/]*$')"
plat="$(echo "$tarballs" | grep "/ahpls-$host-")"

scratch="$(mktemp -d "${TMPDIR:-/tmp}/ahpls-npm.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"
echo '{"name":"scratch","version":"1.0.0","private":true}' >package.json
# Both tarballs in one install: the platform package satisfies the main
# package's optional dependency on it; the other five are skipped (os/cpu).
npm install --no-audit --no-fund --loglevel=error "$plat" "$main"
cp -R "$root/editors/testdata/workspace" fixture
set +e
out="$(npx --no-install ahpls check fixture 2>&1)"
rc=$?
set -e
echo "$out"
echo "$out" | grep -q 'skill/name' || { echo "test-npm: npx ahpls check did not report the fixture's skill name (exit $rc)" >&2; exit 1; }
[ "$rc" -le 1 ] || { echo "test-npm: npx ahpls check exited $rc" >&2; exit 1; }
mcp="$(node "$root/scripts/mcp-handshake.js" npx --no-install ahpls mcp)"
echo "npx ahpls mcp: $mcp"
[ -z "$want" ] || [ "${mcp%%,*}" = "ahpls $want" ] || { echo "test-npm: want the MCP server's version $want" >&2; exit 1; }
got="$(npx --no-install ahpls version)"
echo "npx ahpls version: $got"
[ -z "$want" ] || [ "$got" = "ahpls $want" ] || { echo "test-npm: want ahpls $want" >&2; exit 1; }
echo "test-npm: ok (npx ahpls check, mcp and version from the packed tarballs)"
