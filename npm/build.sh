#!/usr/bin/env bash
# Builds the npm packages into npm/dist/ and packs each one with `npm pack`:
#   ahpls-<version>.tgz                 the `ahpls` command (bin/ahpls.js), with
#                                       the six platform packages as optionalDependencies
#   ahpls-<platform>-<version>.tgz      @ahpls/<platform>: that platform's ahpls and ahpls-mcp
# Usage: npm/build.sh [--bin DIR] [version] (default version: the one in
# npm/ahpls/package.json). With --bin the binaries are DIR/ahpls[-mcp]-<goos>-
# <goarch>[.exe] and each must be there (the release's binaries, built once:
# scripts/release.sh); without it they come from bin/ (`make cross`) when
# present, else from `go build` here. Prints the tarballs' paths.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="/usr/local/go/bin:$PATH"
bindir="$root/bin"
strict=0
if [ "${1:-}" = --bin ]; then
  [ $# -ge 2 ] || { echo "npm/build.sh: --bin needs a folder" >&2; exit 2; }
  bindir="$(cd "$2" && pwd)"
  strict=1
  shift 2
fi
version="${1:-$(node -p "require('$root/npm/ahpls/package.json').version")}"
version="${version#v}"
out="$root/npm/dist"
rm -rf "$out"
mkdir -p "$out/stage"

# shellcheck source=npm/platforms.sh
. "$root/npm/platforms.sh"
goos() { case "$1" in linux-*) echo linux ;; darwin-*) echo darwin ;; win32-*) echo windows ;; esac; }
goarch() { case "$1" in *-x64) echo amd64 ;; *-arm64) echo arm64 ;; esac; }

for p in "${platforms[@]}"; do
  os="$(goos "$p")"
  arch="$(goarch "$p")"
  ext=
  [ "$os" = windows ] && ext=.exe
  exe=ahpls$ext
  dir="$out/stage/$p"
  mkdir -p "$dir/bin"
  # Both binaries: `ahpls mcp` runs the ahpls-mcp beside ahpls.
  for cmd in ahpls ahpls-mcp; do
    prebuilt="$bindir/$cmd-$os-$arch$ext"
    if [ -f "$prebuilt" ]; then
      cp "$prebuilt" "$dir/bin/$cmd$ext"
    elif [ "$strict" = 1 ]; then
      echo "npm/build.sh: no $prebuilt" >&2
      exit 1
    else
      echo "npm/build.sh: go build $cmd $os/$arch" >&2
      (cd "$root" && CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath \
        -ldflags "-s -w -X main.version=$version" -o "$dir/bin/$cmd$ext" "./cmd/$cmd")
    fi
    chmod 755 "$dir/bin/$cmd$ext"
  done
  cp "$root/LICENSE" "$dir/"
  sed "s/PLATFORM/$p/g" "$root/npm/platform/README.md" >"$dir/README.md"
  node - "$dir/package.json" "$p" "$version" "${p%-*}" "${p#*-}" "$exe" <<'JS'
const [file, platform, version, os, cpu, exe] = process.argv.slice(2);
const pkg = {
  name: `@ahpls/${platform}`,
  version,
  description: `The ahpls binary for ${os}/${cpu} (installed by the ahpls package).`,
  license: 'Apache-2.0',
  repository: { type: 'git', url: 'git+https://github.com/ahpls-dev/ahpls.git' },
  os: [os],
  cpu: [cpu],
  files: [`bin/${exe}`, `bin/${exe.replace('ahpls', 'ahpls-mcp')}`, 'README.md', 'LICENSE'],
  preferUnplugged: true,
};
require('node:fs').writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
JS
done

main="$out/stage/ahpls"
mkdir -p "$main/bin"
cp "$root/npm/ahpls/bin/ahpls.js" "$main/bin/"
chmod 755 "$main/bin/ahpls.js"
cp "$root/npm/ahpls/README.md" "$root/LICENSE" "$main/"
node - "$root/npm/ahpls/package.json" "$main/package.json" "$version" <<'JS'
const fs = require('node:fs');
const [src, dst, version] = process.argv.slice(2);
const pkg = JSON.parse(fs.readFileSync(src, 'utf8'));
pkg.version = version;
for (const k of Object.keys(pkg.optionalDependencies)) pkg.optionalDependencies[k] = version;
fs.writeFileSync(dst, JSON.stringify(pkg, null, 2) + '\n');
JS

for d in "$out/stage"/*/; do
  (cd "$out" && npm pack --silent "$d" >/dev/null)
done
ls "$out"/*.tgz
