#!/usr/bin/env bash
# Lints the README's example workflow against action.yml with actionlint
# (github.com/rhysd/actionlint v1.7.12, from the Go module proxy): the
# workflow's `with:` keys must be inputs of the action, its expressions
# valid. The workflow uses the action as `./` in a throwaway repository
# holding action.yml. Called from .ci/run.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/.github/workflows" "$tmp/scripts"
cp "$repo/action.yml" "$tmp/"
cp "$repo/scripts/action.sh" "$tmp/scripts/"
# The first ```yaml block that starts with `name: ahpls` in the README.
awk '/^```yaml$/ {getline l; if (l ~ /^name: ahpls/) {on=1; print l; next}} on && /^```$/ {exit} on {print}' \
  "$repo/README.md" | sed 's|ahpls-dev/ahpls@main|./|' >"$tmp/.github/workflows/ahpls.yml"
[ -s "$tmp/.github/workflows/ahpls.yml" ] || { echo "test-action-workflow: no example workflow in README.md" >&2; exit 1; }
git -C "$tmp" init -q
cd "$tmp"
actionlint="${ACTIONLINT:-}"
if [ -z "$actionlint" ]; then
  GOBIN="$tmp/bin" go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
  actionlint="$tmp/bin/actionlint"
fi
"$actionlint" -shellcheck= -pyflakes= .github/workflows/ahpls.yml
echo "test-action-workflow: ok (README workflow lints against action.yml)"
