#!/usr/bin/env bash
# Builds a platform vsix: the extension bundled by esbuild (dist/extension.js;
# no node_modules shipped) plus that platform's `ahpls` and `ahpls-mcp`
# binaries in bin/ (`ahpls mcp` runs the ahpls-mcp beside ahpls), packaged
# with `vsce package --target`.
#
#   editors/vsix.sh                 this machine's target only (`make vsix`)
#   editors/vsix.sh --all           all six targets (a target whose Go cross
#                                   build fails is reported and skipped)
#   editors/vsix.sh linux-x64 …     the named targets
#
# Options:
#   --strict             fail when any target fails (default: only the host's)
#   --bin DIR            take the binaries from DIR (DIR/ahpls[-mcp]-<goos>-<goarch>[.exe],
#                        as scripts/release.sh collects goreleaser's) instead of
#                        building them: the release's binaries, built once
#   --version V          the extension's version in the manifest (default: package.json's)
#   --pre-release        package as a Marketplace pre-release (vsce --pre-release);
#                        the version must still be plain major.minor.patch
#   --binary-version V   what `ahpls version` prints when the binaries are built
#                        here (default: <version>+<commit>, not a release)
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
prebuilt=""
version=""
prerelease=0
binversion=""
host_target() {
  local os arch
  case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) os=win32 ;; esac
  case "$(uname -m)" in x86_64 | amd64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) arch="$(uname -m)" ;; esac
  echo "$os-$arch"
}
while [ $# -gt 0 ]; do
  case "$1" in
    --host-only) targets+=("$(host_target)") ;;
    --all) targets+=("${all[@]}") ;;
    --strict) strict=1 ;;
    --pre-release) prerelease=1 ;;
    --bin | --version | --binary-version)
      [ $# -ge 2 ] || { echo "vsix.sh: $1 needs a value" >&2; exit 2; }
      case "$1" in
        --bin) prebuilt="$(cd "$2" && pwd)" ;;
        --version) version="$2" ;;
        --binary-version) binversion="$2" ;;
      esac
      shift ;;
    -*) echo "vsix.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1") ;;
  esac
  shift
done
[ "${#targets[@]}" -gt 0 ] || targets=("$(host_target)")

goos() { case "$1" in linux-*) echo linux ;; darwin-*) echo darwin ;; win32-*) echo windows ;; esac; }
goarch() { case "$1" in *-x64) echo amd64 ;; *-arm64) echo arm64 ;; esac; }

# The extension code, once for all targets.
(cd "$ext" &&
  { [ -d node_modules/esbuild ] && [ -d node_modules/@vscode/vsce ] || npm ci --no-audit --no-fund --loglevel=error; } &&
  npm run --silent bundle) >&2

[ -n "$version" ] || version="$(node -p "require('$ext/package.json').version")"
if [ -z "$binversion" ]; then
  binversion="$version+$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
fi
vsce_flags=()
[ "$prerelease" = 0 ] || vsce_flags+=(--pre-release)
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
  x=
  [ "$os" = windows ] && x=.exe
  exe=ahpls$x
  failed=0
  for cmd in ahpls ahpls-mcp; do
    if [ -n "$prebuilt" ]; then
      if [ -f "$prebuilt/$cmd-$os-$arch$x" ]; then
        cp "$prebuilt/$cmd-$os-$arch$x" "$stage/bin/$cmd$x"
      else
        echo "   no $prebuilt/$cmd-$os-$arch$x" >&2
        failed=1
      fi
      continue
    fi
    echo "== $t: GOOS=$os GOARCH=$arch go build ./cmd/$cmd" >&2
    if ! (cd "$root" && CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" "$GO" build -trimpath \
      -ldflags "-s -w -X main.version=$binversion" -o "$stage/bin/$cmd$x" "./cmd/$cmd") >"$work/$t.build.log" 2>&1; then
      sed 's/^/   /' "$work/$t.build.log" | head -20 >&2
      failed=1
    fi
  done
  if [ "$failed" = 1 ]; then
    echo "   skipped $t: no binaries for $os/$arch" >&2
    skipped+=("$t")
    continue
  fi
  chmod 755 "$stage/bin/$exe" "$stage/bin/ahpls-mcp$x"
  # The manifest with the version asked for; the checkout's package.json is
  # left alone (a release never edits the tree).
  node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync(process.argv[1],"utf8"));p.version=process.argv[3];fs.writeFileSync(process.argv[2],JSON.stringify(p,null,2)+"\n")' \
    "$ext/package.json" "$stage/package.json" "$version"
  cp "$ext/README.md" "$stage/"
  cp "$root/LICENSE" "$stage/LICENSE"
  cp "$ext/dist/extension.js" "$stage/dist/"
  mkdir -p "$stage/images" && cp "$ext/images/icon.png" "$stage/images/"
  printf '%s\n' '**/*.map' >"$stage/.vscodeignore"
  file="$out/ahpls-$t-$version.vsix"
  rm -f "$file"
  (cd "$stage" && "$ext/node_modules/.bin/vsce" package --no-dependencies --no-update-package-json \
    --target "$t" --out "$file" --allow-missing-repository ${vsce_flags[@]+"${vsce_flags[@]}"}) >"$work/$t.vsce.log" 2>&1 ||
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
