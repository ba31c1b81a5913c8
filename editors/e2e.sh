#!/usr/bin/env bash
# The real VS Code test: ahpls's vsix installed into code-server (VS Code
# 1.100.3 served to a browser), driven by headless Debian Chromium through
# playwright-core. `make editors-e2e` runs it; .ci/run calls that.
#
# Installs what it needs on a clean Debian machine:
#   apt:  chromium, ripgrep, libkrb5-dev (kerberos, a native module of VS Code),
#         python3 make g++ (node-gyp builds node-pty and friends)
#   npm:  code-server@4.100.3 and playwright-core into $AHPLS_E2E_CACHE
#         (default ~/.cache/ahpls-e2e, outside the repository)
# code-server's @vscode/ripgrep postinstall would download `rg`; it reads a
# cache in $TMPDIR first, so Debian's rg is put there as the tarball it expects.
# Nothing downloads a browser: playwright-core drives /usr/bin/chromium.
#
# `editors/e2e.sh --install-only` stops after the installs (to warm the cache).
#
# Env: AHPLS_E2E_CACHE, AHPLS_E2E_ARTIFACTS (screenshots and logs; default
# editors/vscode/e2e/artifacts, gitignored), AHPLS_E2E_TIMEOUT (seconds for the
# browser part, default 420).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ext="$root/editors/vscode"
cache="${AHPLS_E2E_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/ahpls-e2e}"
artifacts="${AHPLS_E2E_ARTIFACTS:-$ext/e2e/artifacts}"
CODE_SERVER_VERSION=4.100.3
PLAYWRIGHT_VERSION=1.52.0
RIPGREP_PKG_VERSION=1.15.11 # @vscode/ripgrep in code-server 4.100.3's shrinkwrap
RIPGREP_ASSET=v13.0.0-10    # VERSION in that package's lib/postinstall.js
start=$(date +%s)
step() { printf '\n=== e2e [%ss] %s\n' "$(($(date +%s) - start))" "$*"; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi
}

# --- apt ---------------------------------------------------------------------------
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v rg >/dev/null 2>&1 || need+=(ripgrep)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
for t in python3 make g++; do command -v "$t" >/dev/null 2>&1 || need+=("$t"); done
if [ "${#need[@]}" -gt 0 ]; then
  step "apt-get install ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends "${need[@]}" ||
    { as_root apt-get -o DPkg::Lock::Timeout=300 update && as_root apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends "${need[@]}"; }
fi

# --- npm: code-server and playwright-core --------------------------------------------
mkdir -p "$cache"
cs="$cache/code-server-$CODE_SERVER_VERSION"
if [ ! -x "$cs/node_modules/.bin/code-server" ] || [ ! -f "$cs/.complete" ]; then
  step "npm install code-server@$CODE_SERVER_VERSION (native modules build; takes a few minutes)"
  rm -rf "$cs"
  mkdir -p "$cs"
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/ahpls-e2e-npm.XXXXXX")"
  rgcache="$tmp/vscode-ripgrep-cache-$RIPGREP_PKG_VERSION"
  mkdir -p "$rgcache/rgdir"
  cp "$(command -v rg)" "$rgcache/rgdir/rg"
  tar -C "$rgcache/rgdir" -czf "$rgcache/ripgrep-$RIPGREP_ASSET-x86_64-unknown-linux-musl.tar.gz" rg
  case "$(uname -m)" in aarch64 | arm64)
    cp "$rgcache/ripgrep-$RIPGREP_ASSET-x86_64-unknown-linux-musl.tar.gz" "$rgcache/ripgrep-$RIPGREP_ASSET-aarch64-unknown-linux-musl.tar.gz" ;;
  esac
  nodedir="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
  (cd "$cs" && echo '{"private":true}' >package.json &&
    TMPDIR="$tmp" npm_config_yes=true npm_config_nodedir="$nodedir" npm_config_unsafe_perm=true \
      "$root/scripts/progress.sh" "npm install code-server" \
      npm install --no-audit --no-fund --loglevel=error --unsafe-perm "code-server@$CODE_SERVER_VERSION")
  rm -rf "$tmp"
  touch "$cs/.complete"
fi
pw="$cache/playwright-core-$PLAYWRIGHT_VERSION"
if [ ! -f "$pw/node_modules/playwright-core/package.json" ]; then
  step "npm install playwright-core@$PLAYWRIGHT_VERSION (no browser download)"
  mkdir -p "$pw"
  (cd "$pw" && echo '{"private":true}' >package.json &&
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error "playwright-core@$PLAYWRIGHT_VERSION")
fi

if [ "${1:-}" = --install-only ]; then
  step "installed (--install-only)"
  exit 0
fi

# --- the vsix under test --------------------------------------------------------------
step "building the linux vsix"
vsix="$(bash "$root/editors/vsix.sh" --host-only | tail -1)"
[ -f "$vsix" ] || { echo "no vsix built"; exit 1; }
echo "vsix: $vsix ($(du -h "$vsix" | cut -f1))"

step "building the AHP test host (editors/vscode/e2e/testhost)"
mkdir -p "$artifacts"
testhost="$cache/testhost"
(cd "$root" && PATH="/usr/local/go/bin:$PATH" go build -o "$testhost" ./editors/vscode/e2e/testhost)

# --- run ------------------------------------------------------------------------------
step "code-server + chromium"
rm -rf "$artifacts"/*.png "$artifacts"/*.txt "$artifacts"/*.log "$artifacts"/logs
CODE_SERVER="$cs/node_modules/.bin/code-server" \
  PLAYWRIGHT_CORE="$pw/node_modules/playwright-core" \
  AHPLS_VSIX="$vsix" \
  AHPLS_TESTHOST="$testhost" \
  AHPLS_E2E_ARTIFACTS="$artifacts" \
  AHPLS_E2E_FIXTURE="$root/editors/testdata/workspace" \
  timeout "$(( ${AHPLS_E2E_TIMEOUT:-420} + 60 ))" node "$ext/e2e/test.mjs"
step "passed"
