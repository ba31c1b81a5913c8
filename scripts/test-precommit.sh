#!/usr/bin/env bash
# Tests .pre-commit-hooks.yaml with a real pre-commit (Debian's package) in
# a throwaway git repository, offline: a commit with a broken SKILL.md (tab
# indentation, which has a safe fix) is refused, the fix hook repairs it,
# and the commit then passes. Needs pre-commit, git and a built bin/ahpls
# (built here if missing). Called from .ci/run.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
command -v pre-commit >/dev/null || { echo "test-precommit: pre-commit is not installed" >&2; exit 1; }
if [ ! -x "$repo/bin/ahpls" ]; then
  (cd "$repo" && go build -o bin/ahpls ./cmd/ahpls)
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export PATH="$repo/bin:$PATH"
export PRE_COMMIT_HOME="$tmp/cache"
export GIT_CONFIG_GLOBAL="$tmp/gitconfig" GIT_CONFIG_NOSYSTEM=1
git config --global user.name test
git config --global user.email test@example.invalid
git config --global init.defaultBranch main
git config --global protocol.file.allow always

# The hook repository: this working tree's .pre-commit-hooks.yaml, committed
# on its own so uncommitted edits are what is tested.
hooks="$tmp/hooks"
mkdir -p "$hooks"
cp "$repo/.pre-commit-hooks.yaml" "$hooks/"
git -C "$hooks" init -q
git -C "$hooks" add .pre-commit-hooks.yaml
git -C "$hooks" commit -qm hooks
rev="$(git -C "$hooks" rev-parse HEAD)"

ws="$tmp/ws"
mkdir -p "$ws/.github/skills/tab-skill"
cd "$ws"
git init -q
cat >.pre-commit-config.yaml <<YAML
repos:
  - repo: $hooks
    rev: $rev
    hooks:
      - id: ahpls-fix
      - id: ahpls-check
YAML
git add .pre-commit-config.yaml
git commit -qm config
pre-commit install >/dev/null

skill=.github/skills/tab-skill/SKILL.md
printf -- '---\nname: tab-skill\ndescription: Checks a skill whose header is indented with tabs.\nmetadata:\n\tauthor: someone\n---\n# Tabs\n' >"$skill"
printf '# not a customization file\n\tindented\n' >notes.md
git add "$skill" notes.md

fail() { echo "test-precommit: FAIL: $*" >&2; exit 1; }

# The check hook alone refuses the broken skill.
if out="$(pre-commit run ahpls-check --files "$skill" 2>&1)"; then
  echo "$out"; fail "ahpls-check passed a SKILL.md with tab indentation"
fi
grep -q 'yaml/tab-indent' <<<"$out" || { echo "$out"; fail "ahpls-check did not name the rule"; }

# A commit is refused; the fix hook repairs the file in the work tree.
if out="$(git commit -qm "broken skill" 2>&1)"; then
  echo "$out"; fail "the commit of a broken SKILL.md was accepted"
fi
grep -q 'files were modified by this hook' <<<"$out" || { echo "$out"; fail "ahpls-fix did not fix the file"; }
! grep -q "$(printf '\t')" "$skill" || fail "the tab is still in $skill"
grep -q '^  author: someone$' "$skill" || fail "the fix did not indent with spaces"

# Staged again, the commit passes, and running the hooks again changes nothing.
git add "$skill"
git commit -qm "fixed skill" >/dev/null 2>&1 || { git commit -m "fixed skill"; fail "the fixed commit was refused"; }
[ "$(git log --format=%s -1)" = "fixed skill" ] || fail "no commit"
pre-commit run --all-files >/dev/null 2>&1 || fail "a second run of the hooks failed"
git diff --quiet || fail "a second run changed files"
echo "test-precommit: ok (refused, fixed by ahpls-fix, committed, second run clean)"
