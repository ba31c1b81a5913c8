#!/usr/bin/env bash
# The release, one step per subcommand. .github/workflows/release.yml runs
# the steps in this order on a v* tag; scripts/release-dry-run.sh runs the
# same lines of that file, in the same order, with publishing stubbed.
#
#   plan TAG   the versions of this tag, into release/release.env (which the
#              later jobs get with the artefacts): VERSION (the tag without "v": what every binary
#              prints), PRERELEASE, NPM_TAG, VSIX_VERSION
#   build      goreleaser (.goreleaser.yaml) builds the binaries of the six
#              platforms once and archives them; the binaries are collected into
#              release/bin/<cmd>-<goos>-<goarch>[.exe] for the steps below
#   package    from those binaries: the npm tarballs (npm/build.sh --bin) and one
#              vsix per platform (editors/vsix.sh --bin); every artefact into
#              release/files/ with checksums.txt over all of them
#   verify     checks the artefacts before anything is published (see verify())
#   github     the GitHub release with every file of release/files
#   npm        npm/publish.sh: platform packages first, ahpls last, under NPM_TAG
#   marketplace  the six vsix files to the Visual Studio Marketplace
#   openvsx    the Open VSX namespace (created when missing), then the six vsix files
#
# Version scheme. A release tag is vX.Y.Z with an even Y; a pre-release tag is
# vX.Y.Z-rc.N (N from 1 to 999). npm and the binaries take the version as it
# is (0.2.0-rc.1, under the dist-tag `next`). The Marketplace accepts only
# X.Y.Z for an extension and keeps pre-releases apart by a flag (`vsce package
# --pre-release` and `vsce publish --pre-release`), recommending odd minors for
# them: the vsix of vX.Y.Z-rc.N is version X.(Y+1).(Z*1000+N), a pre-release
# (0.2.0-rc.1 -> 0.3.1, 0.2.1-rc.2 -> 0.3.1002), and that of vX.Y.Z is X.Y.Z.
# Hence the even minor of releases: an odd one would collide with that lane.
#
# AHPLS_RELEASE_DRY_RUN=1: publishing commands are recorded in
# release/publish.log instead of run (npm's through a stub npm).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/release"
dry="${AHPLS_RELEASE_DRY_RUN:-0}"
# shellcheck source=npm/platforms.sh
. "$root/npm/platforms.sh"

die() { echo "release: $*" >&2; exit 1; }
load() { [ -f "$out/release.env" ] || die "no release/release.env: run \`scripts/release.sh plan TAG\` first"; . "$out/release.env"; }
goos() { case "$1" in linux-*) echo linux ;; darwin-*) echo darwin ;; win32-*) echo windows ;; esac; }
goarch() { case "$1" in *-x64) echo amd64 ;; *-arm64) echo arm64 ;; esac; }
exe() { [ "$(goos "$1")" = windows ] && echo .exe || true; }
archive() { # archive PLATFORM: goreleaser's archive name (.goreleaser.yaml's name_template)
  local ext=tar.gz
  [ "$(goos "$1")" = windows ] && ext=zip
  echo "ahpls_${VERSION}_$(goos "$1")_$(goarch "$1").$ext"
}
# publish CMD ARG…: runs a command that publishes, or in a dry run records it.
publish() {
  if [ "$dry" = 1 ]; then
    printf '%s\n' "$*" >>"$out/publish.log"
    echo "dry run, not run: $*"
  else
    "$@"
  fi
}
host_platform() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo linux-x64 ;; Linux-aarch64) echo linux-arm64 ;;
    Darwin-x86_64) echo darwin-x64 ;; Darwin-arm64) echo darwin-arm64 ;;
  esac
}

plan() {
  local tag="${1:-}" major minor patch rc
  [[ "$tag" =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-rc\.([1-9][0-9]{0,2}))?$ ]] ||
    die "tag '$tag': want vX.Y.Z or vX.Y.Z-rc.N (N from 1 to 999)"
  major="${BASH_REMATCH[1]}" minor="${BASH_REMATCH[2]}" patch="${BASH_REMATCH[3]}" rc="${BASH_REMATCH[5]}"
  ((minor % 2 == 0)) ||
    die "tag '$tag': the minor version must be even (odd minors are the Marketplace pre-release lane of the vsix; see this script's header)"
  mkdir -p "$out"
  {
    echo "TAG=$tag"
    echo "VERSION=${tag#v}"
    if [ -n "$rc" ]; then
      echo "PRERELEASE=true"
      echo "NPM_TAG=next"
      echo "VSIX_VERSION=$major.$((minor + 1)).$((patch * 1000 + rc))"
    else
      echo "PRERELEASE=false"
      echo "NPM_TAG=latest"
      echo "VSIX_VERSION=${tag#v}"
    fi
  } >"$out/release.env"
  cat "$out/release.env"
}

build() {
  load
  local goreleaser="${GORELEASER:-goreleaser}"
  # The tag named, not the one goreleaser would pick: a commit may carry a
  # pre-release tag and its release tag both.
  GORELEASER_CURRENT_TAG="$TAG" "$goreleaser" release --clean --skip=publish
  rm -rf "$out/bin"
  mkdir -p "$out/bin"
  node - "$root/dist/artifacts.json" "$out/bin" <<'JS'
const fs = require('node:fs');
const path = require('node:path');
const [file, dir] = process.argv.slice(2);
let n = 0;
for (const a of JSON.parse(fs.readFileSync(file, 'utf8'))) {
  if (a.type !== 'Binary') continue;
  const name = `${a.extra.Binary}-${a.goos}-${a.goarch}${a.extra.Ext || ''}`;
  fs.copyFileSync(a.path, path.join(dir, name));
  fs.chmodSync(path.join(dir, name), 0o755);
  n++;
}
console.log(`release: ${n} binaries from goreleaser in ${dir}`);
JS
  local p x
  for p in "${platforms[@]}"; do
    x="$(exe "$p")"
    for b in ahpls ahpls-mcp; do
      [ -f "$out/bin/$b-$(goos "$p")-$(goarch "$p")$x" ] || die "goreleaser built no $b for $p"
    done
    [ -f "dist/$(archive "$p")" ] || die "goreleaser made no $(archive "$p")"
  done
}

package() {
  load
  local p flags=()
  rm -rf "$out/files"
  mkdir -p "$out/files"
  for p in "${platforms[@]}"; do cp "dist/$(archive "$p")" "$out/files/"; done
  [ ! -f dist/CHANGELOG.md ] || cp dist/CHANGELOG.md "$out/notes.md"

  bash npm/build.sh --bin "$out/bin" "$VERSION" >/dev/null
  for p in "${platforms[@]}"; do cp "npm/dist/ahpls-$p-$VERSION.tgz" "$out/files/"; done
  cp "npm/dist/ahpls-$VERSION.tgz" "$out/files/"

  flags=(--all --strict --bin "$out/bin" --version "$VSIX_VERSION")
  [ "$PRERELEASE" = false ] || flags+=(--pre-release)
  bash editors/vsix.sh "${flags[@]}" >/dev/null
  for p in "${platforms[@]}"; do cp "editors/vscode/dist-vsix/ahpls-$p-$VSIX_VERSION.vsix" "$out/files/"; done

  (cd "$out/files" && sha256sum -- * >"$out/checksums.txt" && mv "$out/checksums.txt" .)
  echo "release: $(($(ls "$out/files" | wc -l) - 1)) artefacts and checksums.txt in release/files"
}

# verify: everything a publishing step relies on, before the first one runs.
verify() {
  load
  local p x f list n host v want="ahpls $VERSION" scratch
  # Every artefact is in checksums.txt, and only they: 6 archives, 7 npm
  # tarballs, 6 vsix files.
  (cd "$out/files" && sha256sum --quiet -c checksums.txt) || die "checksums.txt does not match"
  n="$(wc -l <"$out/files/checksums.txt")"
  [ "$n" = 19 ] && [ "$(ls "$out/files" | wc -l)" = 20 ] || die "want 19 artefacts in checksums.txt and 20 files, got $n and $(ls "$out/files" | wc -l)"
  for f in "$out"/files/*; do
    [ "${f##*/}" = checksums.txt ] || grep -q "  ${f##*/}\$" "$out/files/checksums.txt" || die "${f##*/} is not in checksums.txt"
  done

  for p in "${platforms[@]}"; do
    x="$(exe "$p")"
    # The archive, the npm package and the vsix each carry both binaries.
    f="$out/files/$(archive "$p")"
    if [[ "$f" == *.zip ]]; then list="$(unzip -Z1 "$f")"; else list="$(tar -tzf "$f")"; fi
    grep -qx "ahpls$x" <<<"$list" && grep -qx "ahpls-mcp$x" <<<"$list" || die "${f##*/} lacks ahpls$x or ahpls-mcp$x"
    f="$out/files/ahpls-$p-$VERSION.tgz"
    list="$(tar -tzf "$f")"
    grep -qx "package/bin/ahpls$x" <<<"$list" && grep -qx "package/bin/ahpls-mcp$x" <<<"$list" || die "${f##*/} lacks a binary"
    v="$(tar -xzOf "$f" package/package.json | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).version')"
    [ "$v" = "$VERSION" ] || die "${f##*/} has version $v"
    f="$out/files/ahpls-$p-$VSIX_VERSION.vsix"
    list="$(unzip -Z1 "$f")"
    grep -qx "extension/bin/ahpls$x" <<<"$list" && grep -qx "extension/bin/ahpls-mcp$x" <<<"$list" || die "${f##*/} lacks a binary"
    # What `vsce publish` refuses: a semver pre-release version, and
    # --pre-release for a package not packaged as one.
    v="$(unzip -p "$f" extension/package.json | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).version')"
    [ "$v" = "$VSIX_VERSION" ] && [[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "${f##*/} has version $v, want $VSIX_VERSION (X.Y.Z only)"
    if unzip -p "$f" extension.vsixmanifest | grep -q 'Id="Microsoft.VisualStudio.Code.PreRelease" Value="true"'; then
      [ "$PRERELEASE" = true ] || die "${f##*/} is packaged as a pre-release"
    else
      [ "$PRERELEASE" = false ] || die "${f##*/} is not packaged as a pre-release"
    fi
  done
  v="$(tar -xzOf "$out/files/ahpls-$VERSION.tgz" package/package.json |
    node -p 'const p = JSON.parse(require("fs").readFileSync(0, "utf8")); [p.version, ...new Set(Object.values(p.optionalDependencies))].join(" ")')"
  [ "$v" = "$VERSION $VERSION" ] || die "ahpls-$VERSION.tgz: version and optionalDependencies are $v"
  # mason's package (packaging/mason) installs the archives of the release
  # pinned in it: a release moves that pin first.
  if [ "$PRERELEASE" = false ]; then
    grep -qx "  id: pkg:github/ahpls-dev/ahpls@$TAG" packaging/mason/packages/ahpls/package.yaml ||
      die "packaging/mason/packages/ahpls/package.yaml pins another release than $TAG (source.id): update it first"
  fi
  echo "release: 19 artefacts in checksums.txt; each archive, npm package and vsix carries ahpls and ahpls-mcp; vsix version $VSIX_VERSION (pre-release: $PRERELEASE)"

  # On a host that runs one of the platforms: the same `ahpls version` from
  # the archive, the vsix and npm, and `ahpls mcp` from each.
  host="$(host_platform)"
  [ -n "$host" ] || { echo "release: no platform binary runs here; version checks skipped"; return 0; }
  scratch="$(mktemp -d "${TMPDIR:-/tmp}/ahpls-release.XXXXXX")"
  mkdir -p "$scratch/archive" "$scratch/vsix"
  tar -xzf "$out/files/$(archive "$host")" -C "$scratch/archive"
  unzip -q "$out/files/ahpls-$host-$VSIX_VERSION.vsix" -d "$scratch/vsix"
  chmod 755 "$scratch"/vsix/extension/bin/* # zip extraction drops the mode, as the extension's repairBundledBinary knows
  for b in archive/ahpls vsix/extension/bin/ahpls; do
    v="$("$scratch/$b" version)"
    echo "$b version: $v"
    [ "$v" = "$want" ] || { rm -rf "$scratch"; die "$b prints '$v', want '$want'"; }
    v="$(node scripts/mcp-handshake.js "$scratch/$b" mcp)"
    echo "$b mcp: $v"
    [ "${v%%,*}" = "$want" ] || { rm -rf "$scratch"; die "$b mcp answers '$v', want '$want'"; }
  done
  rm -rf "$scratch"
  bash scripts/test-npm.sh --tarballs "$out/files" --version "$VERSION"
}

github() {
  load
  local flags=(--verify-tag --title "ahpls $VERSION")
  if [ -f "$out/notes.md" ]; then flags+=(--notes-file "$out/notes.md"); else flags+=(--generate-notes); fi
  [ "$PRERELEASE" = false ] || flags+=(--prerelease)
  publish gh release create "$TAG" "${flags[@]}" "$out"/files/*
}

npm_publish() {
  load
  local npm=npm
  if [ "$dry" = 1 ]; then
    npm="$out/npm-stub"
    # Nothing is on the registry yet; publish is recorded.
    printf '#!/bin/sh\n[ "$1" = view ] && exit 1\nprintf "npm %%s\\n" "$*" >>"%s"\n' "$out/publish.log" >"$npm"
    chmod 755 "$npm"
  fi
  NPM="$npm" bash npm/publish.sh "$out/files" "$VERSION" "$NPM_TAG" --provenance
}

marketplace() {
  load
  # VSCE_PAT from the environment; the vsce of editors/vscode's lock file.
  local p flags=() vsce="${VSCE:-npx --yes @vscode/vsce@$(node -p "require('./editors/vscode/package.json').devDependencies['@vscode/vsce']")}"
  [ "$PRERELEASE" = false ] || flags+=(--pre-release)
  for p in "${platforms[@]}"; do
    # shellcheck disable=SC2086
    publish $vsce publish --packagePath "$out/files/ahpls-$p-$VSIX_VERSION.vsix" ${flags[@]+"${flags[@]}"}
  done
}

openvsx() {
  load
  # OVSX_PAT from the environment. The extension's publisher must exist as an
  # Open VSX namespace before its first publish: created here when the
  # registry does not know it (once; the token's user becomes its owner).
  local p code ns ovsx="${OVSX:-npx --yes ovsx@0.10.9}"
  ns="$(node -p "require('./editors/vscode/package.json').publisher")"
  if [ "$dry" = 1 ]; then
    echo "dry run: the namespace $ns is created when https://open-vsx.org/api/$ns answers 404"
  else
    code="$(curl -sS -o /dev/null -w '%{http_code}' "https://open-vsx.org/api/$ns")"
    case "$code" in
      200) ;;
      404) $ovsx create-namespace "$ns" ;;
      *) die "open-vsx.org answered $code for the namespace $ns" ;;
    esac
  fi
  # A pre-release vsix is marked in its manifest; Open VSX reads it there.
  for p in "${platforms[@]}"; do
    # shellcheck disable=SC2086
    publish $ovsx publish "$out/files/ahpls-$p-$VSIX_VERSION.vsix"
  done
}

step="${1:-}"
[ $# -gt 0 ] && shift
case "$step" in
  plan) plan "$@" ;;
  build) build ;;
  package) package ;;
  verify) verify ;;
  github) github ;;
  npm) npm_publish ;;
  marketplace) marketplace ;;
  openvsx) openvsx ;;
  *) echo "usage: scripts/release.sh plan TAG | build | package | verify | github | npm | marketplace | openvsx" >&2; exit 2 ;;
esac
