#!/usr/bin/env bash
# Builds the npm packages into npm/dist/ and packs each one with `npm pack`:
#   ahpls-<version>.tgz                 the `ahpls` command (bin/ahpls.js), with
#                                       the six platform packages as optionalDependencies
#   ahpls-<platform>-<version>.tgz      @ahpls/<platform>: that platform's binary
# Binaries come from bin/ahpls-<goos>-<goarch>[.exe] (`make cross`) when
# present, else from `go build` here. Usage: npm/build.sh [version]
# (default: the version in npm/ahpls/package.json). Prints the tarballs' paths.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="/usr/local/go/bin:$PATH"
version="${1:-$(node -p "require('$root/npm/ahpls/package.json').version")}"
version="${version#v}"
out="$root/npm/dist"
rm -rf "$out"
mkdir -p "$out/stage"

platforms=(linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64)
goos() { case "$1" in linux-*) echo linux ;; darwin-*) echo darwin ;; win32-*) echo windows ;; esac; }
goarch() { case "$1" in *-x64) echo amd64 ;; *-arm64) echo arm64 ;; esac; }

for p in "${platforms[@]}"; do
  os="$(goos "$p")"
  arch="$(goarch "$p")"
  exe=ahpls
  [ "$os" = windows ] && exe=ahpls.exe
  dir="$out/stage/$p"
  mkdir -p "$dir/bin"
  prebuilt="$root/bin/ahpls-$os-$arch"
  [ "$os" = windows ] && prebuilt="$prebuilt.exe"
  if [ -f "$prebuilt" ]; then
    cp "$prebuilt" "$dir/bin/$exe"
  else
    echo "npm/build.sh: go build $os/$arch" >&2
    (cd "$root" && CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath \
      -ldflags "-s -w -X main.version=$version" -o "$dir/bin/$exe" ./cmd/ahpls)
  fi
  chmod 755 "$dir/bin/$exe"
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
  files: [`bin/${exe}`, 'README.md', 'LICENSE'],
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
