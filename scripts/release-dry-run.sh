#!/usr/bin/env bash
# The release workflow end to end with publishing stubbed, for each tag given
# (default: the pre-release tag v0.2.0-rc.1 and the release tag v0.2.0):
#   1. the npm publish order test (scripts/test-npm-publish.sh);
#   2. the working tree (tracked and untracked files, as `git status` sees them)
#      is committed into a scratch repository and tagged;
#   3. every `run: scripts/release.sh …` line of .github/workflows/release.yml
#      runs there, in the file's order (its jobs run one after another, so one
#      folder stands for the artifact they hand on), with
#      AHPLS_RELEASE_DRY_RUN=1: the real goreleaser build, npm tarballs, vsix
#      files, checksums and checks (`ahpls version` and `ahpls mcp` from the
#      archive, the vsix and npm), and the publishing commands recorded;
#   4. the recorded commands are checked: the GitHub release with all 20 files
#      (a pre-release for -rc.N), npm's seven publishes (platforms first, ahpls
#      last, under `next` or `latest`), six Marketplace publishes (with
#      --pre-release for -rc.N) and six Open VSX publishes;
#   5. for the first tag, `go install github.com/ahpls-dev/ahpls/cmd/...@TAG`
#      from the scratch repository (git's url.insteadOf stands in for GitHub;
#      the module is fetched, zipped and built by the go command as from the
#      proxy), whose `ahpls version` must equal the archive's.
# Needs goreleaser (GORELEASER, default the one scripts/test-release.sh builds
# into ~/.cache/ahpls-ci), node with editors/vscode's node_modules (installed
# when missing), git, unzip. Called from .ci/run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export PATH="/usr/local/go/bin:$PATH"
cache="${AHPLS_CI_CACHE:-${HOME:-/tmp}/.cache/ahpls-ci}"
export GORELEASER="${GORELEASER:-$cache/goreleaser-v2.15.1/goreleaser}"
[ -x "$GORELEASER" ] || { echo "release-dry-run: no goreleaser at $GORELEASER (scripts/test-release.sh --tools-only builds it)" >&2; exit 1; }
[ $# -gt 0 ] || set -- v0.2.0-rc.1 v0.2.0
fail() { echo "release-dry-run: $*" >&2; exit 1; }
start=$(date +%s)

echo "== npm publish order"
bash "$root/scripts/test-npm-publish.sh"

(cd "$root/editors/vscode" && { [ -d node_modules/@vscode/vsce ] || npm ci --no-audit --no-fund --loglevel=error; })
scratch="$(mktemp -d "${TMPDIR:-/tmp}/ahpls-release-dry-run.XXXXXX")"
trap 'chmod -R u+w "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT
repo="$scratch/repo"
mkdir -p "$repo"
(cd "$root" && git ls-files -z --cached --others --exclude-standard) | (cd "$root" && tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$repo"
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" -c user.name=dry-run -c user.email=dry-run@localhost commit -qm "release dry run"
# As actions/checkout leaves it (goreleaser reads the remote's URL; nothing is fetched or pushed).
git -C "$repo" remote add origin https://github.com/ahpls-dev/ahpls.git
# The extension's build tools, as the workflow's `npm ci` gives them; a
# symlink is no folder to .gitignore's `node_modules/`, so it is excluded here
# (goreleaser refuses a dirty tree).
ln -s "$root/editors/vscode/node_modules" "$repo/editors/vscode/node_modules"
echo /editors/vscode/node_modules >>"$repo/.git/info/exclude"

# The workflow's steps, in order.
mapfile -t steps < <(sed -n 's/^ *run: \(scripts\/release\.sh .*\)$/\1/p' "$root/.github/workflows/release.yml")
[ "${#steps[@]}" -ge 8 ] || fail "found ${#steps[@]} scripts/release.sh steps in release.yml, want at least 8"

go_installed=""
for tag in "$@"; do
  echo "== $tag: ${#steps[@]} steps of .github/workflows/release.yml"
  git -C "$repo" tag "$tag"
  rm -rf "$repo/release" "$repo/dist"
  for s in "${steps[@]}"; do
    echo "-- $s"
    t0=$(date +%s)
    (cd "$repo" && export GITHUB_REF_NAME="$tag" AHPLS_RELEASE_DRY_RUN=1 && eval "$s") 2>&1 | sed 's/^/   /'
    echo "   ($(($(date +%s) - t0))s)"
  done

  . "$repo/release/release.env"
  log="$repo/release/publish.log"
  echo "-- what would have been published"
  sed 's/^/   /' "$log"
  gh="$(grep '^gh release create ' "$log")" || fail "$tag: no gh release create"
  [[ "$gh" == "gh release create $tag --verify-tag --title ahpls $VERSION "* ]] || fail "$tag: gh release create for another tag: $gh"
  if [[ "$gh" == *" --prerelease "* ]]; then has=true; else has=false; fi
  [ "$has" = "$PRERELEASE" ] || fail "$tag: gh release create has --prerelease: $has, a pre-release: $PRERELEASE"
  for f in "$repo"/release/files/*; do
    [[ " $gh " == *" $f "* ]] || fail "$tag: the GitHub release lacks ${f##*/}"
  done
  want=""
  for p in linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64; do
    want+="npm publish $repo/release/files/ahpls-$p-$VERSION.tgz --tag $NPM_TAG --access public --provenance"$'\n'
  done
  want+="npm publish $repo/release/files/ahpls-$VERSION.tgz --tag $NPM_TAG --access public --provenance"
  [ "$(grep '^npm ' "$log")" = "$want" ] || fail "$tag: npm publishes are not the six platform packages then ahpls under $NPM_TAG"
  pre=""
  [ "$PRERELEASE" = false ] || pre=" --pre-release"
  [ "$(grep -c "vsce@[^ ]* publish --packagePath [^ ]*/ahpls-[a-z0-9]*-[a-z0-9]*-$VSIX_VERSION\.vsix$pre\$" "$log")" = 6 ] ||
    fail "$tag: want six Marketplace publishes of version $VSIX_VERSION${pre:+ with$pre}"
  [ "$(grep -c "ovsx@[^ ]* publish [^ ]*/ahpls-[a-z0-9]*-[a-z0-9]*-$VSIX_VERSION\.vsix\$" "$log")" = 6 ] ||
    fail "$tag: want six Open VSX publishes of version $VSIX_VERSION"
  echo "$tag: GitHub release with every artefact, npm under '$NPM_TAG' (platforms first, ahpls last), vsix $VSIX_VERSION to the Marketplace (pre-release: $PRERELEASE) and Open VSX"

  if [ -z "$go_installed" ]; then
    go_installed=1
    echo "-- go install github.com/ahpls-dev/ahpls/cmd/...@$tag (from the scratch repository)"
    gohome="$scratch/go"
    mkdir -p "$gohome/bin"
    printf '[url "file://%s"]\n\tinsteadOf = https://github.com/ahpls-dev/ahpls\n' "$repo" >"$gohome/gitconfig"
    # The module comes from git like any module not on the proxy (GOPRIVATE);
    # its dependencies from this machine's module cache, used as a proxy, into
    # a scratch cache, so no version of this module is left in the real one
    # (a later run would build that stale copy). -trimpath only so that the
    # dependencies, now under another folder, come from the build cache
    # instead of being compiled again; the build info is the same.
    t0=$(date +%s)
    GIT_CONFIG_GLOBAL="$gohome/gitconfig" GIT_ALLOW_PROTOCOL=file GOPRIVATE=github.com/ahpls-dev/ahpls \
      GOPROXY="file://$(go env GOMODCACHE)/cache/download,https://proxy.golang.org" GOFLAGS="-modcacherw -trimpath" \
      GOMODCACHE="$gohome/mod" GOBIN="$gohome/bin" go install "github.com/ahpls-dev/ahpls/cmd/...@$tag"
    v="$("$gohome/bin/ahpls" version)"
    echo "   go install: $(ls "$gohome/bin" | tr '\n' ' ')($(($(date +%s) - t0))s); ahpls version: $v"
    [ "$v" = "ahpls $VERSION" ] || fail "go install's ahpls prints '$v', want 'ahpls $VERSION' as the archive's"
    v="$(node "$root/scripts/mcp-handshake.js" "$gohome/bin/ahpls" mcp)"
    echo "   go install: ahpls mcp: $v"
    [ "${v%%,*}" = "ahpls $VERSION" ] || fail "go install's ahpls mcp answers '$v'"
  fi
done
echo "release-dry-run: ok ($*; $(($(date +%s) - start))s)"
