#!/usr/bin/env bash
# Checks the release configuration without publishing anything:
#   - `goreleaser check` on .goreleaser.yaml (goreleaser v2.15.1 from the Go
#     module proxy; a cold build takes ~7 minutes, so the binary is kept in
#     $AHPLS_CI_CACHE, default ~/.cache/ahpls-ci, and reused);
#   - every asset of the mason package (packaging/mason/packages/ahpls/package.yaml) is an
#     archive that .goreleaser.yaml's name_template gives for one of the six
#     platforms;
#   - the workflows under .github/workflows pass actionlint (v1.7.12, cached
#     the same way).
# `--tools-only` builds the two tools and stops. Called from .ci/run; the npm
# packages are tested by scripts/test-npm.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export PATH="/usr/local/go/bin:$PATH"
cache="${AHPLS_CI_CACHE:-${HOME:-/tmp}/.cache/ahpls-ci}"
GORELEASER_VERSION=v2.15.1
ACTIONLINT_VERSION=v1.7.12
mkdir -p "$cache"

# tool NAME MODULE VERSION: the cached binary's path, built on first use.
tool() {
  local dir="$cache/$1-$3"
  if [ ! -x "$dir/$1" ]; then
    echo "test-release: building $1 $3 into $dir (once; goreleaser takes minutes)" >&2
    local start=$(date +%s)
    GOBIN="$dir" GOFLAGS= go install "$2@$3" >&2
    echo "test-release: built $1 in $(($(date +%s) - start))s" >&2
  fi
  echo "$dir/$1"
}

goreleaser="$(tool goreleaser github.com/goreleaser/goreleaser/v2 "$GORELEASER_VERSION")"
if [ "${1:-}" = --tools-only ]; then
  # .ci/run builds the tools at low priority while its other steps run.
  tool actionlint github.com/rhysd/actionlint/cmd/actionlint "$ACTIONLINT_VERSION" >/dev/null
  echo "test-release: tools ready in $cache"
  exit 0
fi
echo "== goreleaser check ($("$goreleaser" --version 2>/dev/null | grep -m1 -i '^gitversion' | tr -s ' ' || echo "$GORELEASER_VERSION"))"
(cd "$root" && "$goreleaser" check)

echo "== mason package: assets are goreleaser's archives"
grep -q 'name_template: "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}"' "$root/.goreleaser.yaml" ||
  { echo "test-release: .goreleaser.yaml's archive name_template changed; update packaging/mason/packages/ahpls/package.yaml" >&2; exit 1; }
for t in darwin_x64:darwin_amd64:tar.gz darwin_arm64:darwin_arm64:tar.gz linux_x64:linux_amd64:tar.gz \
  linux_arm64:linux_arm64:tar.gz win_x64:windows_amd64:zip win_arm64:windows_arm64:zip; do
  IFS=: read -r target osarch ext <<<"$t"
  grep -A1 -- "- target: $target\$" "$root/packaging/mason/packages/ahpls/package.yaml" |
    grep -qF "file: ahpls_{{ version | strip_prefix \"v\" }}_${osarch}.${ext}" ||
    { echo "test-release: mason target $target does not name ahpls_<version>_${osarch}.${ext}" >&2; exit 1; }
done
[ "$(grep -c 'mcp: ahpls-mcp' "$root/packaging/mason/packages/ahpls/package.yaml")" = 6 ] ||
  { echo "test-release: every mason target must name its ahpls-mcp binary (\`ahpls mcp\` runs it)" >&2; exit 1; }
grep -q 'ids: \[ahpls, ahpls-mcp\]' "$root/.goreleaser.yaml" ||
  { echo "test-release: the archives must hold ahpls-mcp beside ahpls" >&2; exit 1; }
echo "mason: 6 targets match, each with ahpls-mcp"

echo "== actionlint .github/workflows"
actionlint="$(tool actionlint github.com/rhysd/actionlint/cmd/actionlint "$ACTIONLINT_VERSION")"
(cd "$root" && "$actionlint" -shellcheck= -pyflakes= .github/workflows/*.yml)
echo "test-release: ok"
