#!/usr/bin/env bash
# Tests of the editor clients against the real server binary:
#   1. builds the VS Code extension (tsc --noEmit, then tsc),
#   2. node --test: the extension's logic (no VS Code needed),
#   3. node --test: the protocol test driving bin/ahpls with vscode-languageserver-protocol,
#   4. headless Neovim (0.7.2 from Debian is enough): unit tests and the end-to-end test.
# Installs what is missing (neovim via apt-get, npm ci). Server binary: $AHPLS_BIN,
# else ./bin/ahpls (built here from ./cmd/ahpls when absent).
# Ends with the line "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ext="$root/editors/vscode"
bin="${AHPLS_BIN:-$root/bin/ahpls}"
work="$(mktemp -d "${TMPDIR:-/tmp}/ahpls-editors-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
log() { printf '\n=== %s\n' "$*"; }
fail_step() { # a step that produced no test counts of its own
  printf 'FAIL: %s\n' "$1"
  failed=$((failed + 1))
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi
}

# --- prerequisites -----------------------------------------------------------
if ! command -v nvim >/dev/null 2>&1; then
  log "installing neovim (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get install -y neovim >"$work/apt.log" 2>&1 ||
    { as_root apt-get update >>"$work/apt.log" 2>&1 && as_root apt-get install -y neovim >>"$work/apt.log" 2>&1; } ||
    { tail -20 "$work/apt.log"; fail_step "apt-get install neovim"; }
fi
for tool in node npm; do
  command -v "$tool" >/dev/null 2>&1 || fail_step "$tool is not installed (Node 20 or newer is needed)"
done

if [ ! -x "$bin" ] && [ -z "${AHPLS_BIN:-}" ] && [ -d "$root/cmd/ahpls" ] && command -v go >/dev/null 2>&1; then
  log "building $bin"
  (cd "$root" && go build -o bin/ahpls ./cmd/ahpls) || fail_step "go build -o bin/ahpls ./cmd/ahpls"
fi
[ -x "$bin" ] || echo "warning: no server binary at $bin; the protocol and Neovim end-to-end tests will fail"
export AHPLS_BIN="$bin"

# --- VS Code extension ---------------------------------------------------------
node_counts() { # $1 = TAP file written by node --test
  local p f c
  p="$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$1" | tail -1)"
  f="$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$1" | tail -1)"
  c="$(sed -n 's/^# cancelled \([0-9]*\)$/\1/p' "$1" | tail -1)"
  if [ -z "$p" ] || [ -z "$f" ]; then
    return 1
  fi
  passed=$((passed + p))
  failed=$((failed + f + ${c:-0})) # a test cancelled by a timeout failed too
}

run_node_tests() { # $1 = label, $2 = directory of compiled tests
  local tap="$work/$1.tap"
  log "$1 (node --test)"
  local before=$failed
  (cd "$ext" && node --test --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$tap" "$2")
  local rc=$?
  node_counts "$tap" || { fail_step "$1: node --test reported no counts"; return; }
  if [ "$rc" != 0 ] && [ "$failed" = "$before" ]; then
    fail_step "$1: node --test exited with $rc"
  fi
}

log "npm ci (editors/vscode)"
if (cd "$ext" && npm ci --no-audit --no-fund --loglevel=error); then
  log "npm run build (tsc --noEmit && tsc)"
  if (cd "$ext" && npm run --silent build); then
    passed=$((passed + 1))
    echo "ok - extension type-checks and builds"
    run_node_tests extension-logic out/test/unit/
    run_node_tests protocol out/test/protocol/
  else
    fail_step "npm run build"
  fi
else
  fail_step "npm ci"
fi

# --- Neovim ------------------------------------------------------------------------
if command -v nvim >/dev/null 2>&1; then
  log "neovim $(nvim --version | head -1) (headless)"
  export XDG_CACHE_HOME="$work/cache" XDG_STATE_HOME="$work/state" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"
  (cd "$root" && timeout 600 nvim --headless -u NONE -i NONE -n -c 'luafile editors/nvim/test/run.lua' </dev/null) \
    >"$work/nvim.out" 2>"$work/nvim.err"
  rc=$?
  grep -v '^[0-9]* passed, [0-9]* failed$' "$work/nvim.out"
  counts="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$work/nvim.out" | tail -1)"
  if [ -n "$counts" ]; then
    passed=$((passed + ${counts%% passed*}))
    f="${counts#*, }"
    failed=$((failed + ${f%% failed}))
    [ "$rc" = 0 ] || [ "${f%% failed}" != 0 ] || fail_step "nvim exited with $rc"
  else
    cat "$work/nvim.err"
    fail_step "headless Neovim test (exit $rc) printed no counts"
  fi
  if [ "$rc" != 0 ]; then
    for f in "$work"/cache/nvim/lsp.log "$work"/state/nvim/lsp.log; do
      [ -f "$f" ] && { echo "--- tail of $f"; tail -40 "$f"; }
    done
  fi
else
  fail_step "nvim is not available"
fi
command -v nvim >/dev/null 2>&1 && { log "neovim: LSP features (#18)"; (cd "$root" && timeout 300 nvim --headless -u NONE -i NONE -n -c 'luafile editors/nvim/test/features_spec.lua' </dev/null) >"$work/nvimf.out" 2>&1; cat "$work/nvimf.out"; c="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$work/nvimf.out" | tail -1)"; if [ -n "$c" ]; then f="${c#*, }"; passed=$((passed + ${c%% passed*})); failed=$((failed + ${f%% failed})); else fail_step "features_spec.lua printed no counts"; fi; }

echo
echo "${passed} passed, ${failed} failed"
[ "$failed" = 0 ]
