#!/usr/bin/env bash
# Builds one vsix per platform: the extension bundled by esbuild
# (dist/extension.js; no node_modules shipped) plus the matching `ahpls`
# binary in bin/, packaged with `vsce package --target`.
#
#   editors/vsix.sh               all six targets (a target whose Go cross
#                                 build fails is reported and skipped)
#   editors/vsix.sh --host-only   only this machine's target
#   editors/vsix.sh linux-x64 …   the named targets
#
# Output: editors/vscode/dist-vsix/ahpls-<target>-<version>.vsix, a size table
# on stderr, and the path of the last vsix built as the last line of stdout.
# Exits non-zero when the host target (or, with --strict, any target) fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ext="$root/editors/vscode"
out="$ext/dist-vsix"
export PATH="/usr/local/go/bin:$PATH"
GO="${GO:-go}"

all=(linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64)
strict=0
targets=()
host_target() {
  local os arch
  case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) os=win32 ;; esac
  case "$(uname -m)" in x86_64 | amd64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) arch="$(uname -m)" ;; esac
  echo "$os-$arch"
}
for a in "$@"; do
  case "$a" in
    --host-only) targets+=("$(host_target)") ;;
    --strict) strict=1 ;;
    *) targets+=("$a") ;;
  esac
done
[ "${#targets[@]}" -gt 0 ] || targets=("${all[@]}")

goos() { case "$1" in linux-*) echo linux ;; darwin-*) echo darwin ;; win32-*) echo windows ;; esac; }
goarch() { case "$1" in *-x64) echo amd64 ;; *-arm64) echo arm64 ;; esac; }

# The extension code, once for all targets.
(cd "$ext" &&
  { [ -d node_modules/esbuild ] && [ -d node_modules/@vscode/vsce ] || npm ci --no-audit --no-fund --loglevel=error; } &&
  npm run --silent bundle) >&2

version="$(node -p "require('$ext/package.json').version")"
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
mkdir -p "$out"
work="$(mktemp -d "${TMPDIR:-/tmp}/ahpls-vsix.XXXXXX")"
trap 'rm -rf "$work"' EXIT

built=()
skipped=()
declare -A binsize=()
host="$(host_target)"
last=""
for t in "${targets[@]}"; do
  os="$(goos "$t")"
  arch="$(goarch "$t")"
  if [ -z "$os" ] || [ -z "$arch" ]; then
    echo "unknown target $t (known: ${all[*]})" >&2
    exit 2
  fi
  stage="$work/$t"
  mkdir -p "$stage/bin" "$stage/dist"
  exe=ahpls
  [ "$os" = windows ] && exe=ahpls.exe
  echo "== $t: GOOS=$os GOARCH=$arch go build" >&2
  if ! (cd "$root" && CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" "$GO" build -trimpath \
    -ldflags "-s -w -X main.version=$version+$commit" -o "$stage/bin/$exe" ./cmd/ahpls) >"$work/$t.build.log" 2>&1; then
    sed 's/^/   /' "$work/$t.build.log" | head -20 >&2
    echo "   skipped $t: the Go build for $os/$arch fails" >&2
    skipped+=("$t")
    continue
  fi
  chmod 755 "$stage/bin/$exe"
  cp "$ext/package.json" "$ext/README.md" "$stage/"
  cp "$root/LICENSE" "$stage/LICENSE"
  cp "$ext/dist/extension.js" "$stage/dist/"
  mkdir -p "$stage/images" && cp "$ext/images/icon.png" "$stage/images/"
  printf '%s\n' '**/*.map' >"$stage/.vscodeignore"
  file="$out/ahpls-$t-$version.vsix"
  rm -f "$file"
  (cd "$stage" && "$ext/node_modules/.bin/vsce" package --no-dependencies --no-update-package-json \
    --target "$t" --out "$file" --allow-missing-repository) >"$work/$t.vsce.log" 2>&1 ||
    { cat "$work/$t.vsce.log" >&2; echo "   vsce package failed for $t" >&2; skipped+=("$t"); continue; }
  built+=("$t")
  binsize[$t]="$(wc -c <"$stage/bin/$exe" | tr -d ' ')"
  last="$file"
done

{
  echo
  echo "vsix                                   size     binary"
  for t in "${built[@]}"; do
    f="$out/ahpls-$t-$version.vsix"
    b="${binsize[$t]}"
    printf '%-38s %7s  %s\n' "$(basename "$f")" "$(du -h "$f" | cut -f1)" "$(numfmt --to=iec "$b" 2>/dev/null || echo "$b")"
  done
  [ "${#skipped[@]}" -eq 0 ] || echo "skipped: ${skipped[*]}"
} >&2

for t in "${skipped[@]}"; do
  if [ "$strict" = 1 ] || [ "$t" = "$host" ]; then
    exit 1
  fi
done
[ -n "$last" ] || exit 1
echo "$last"
