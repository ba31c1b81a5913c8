#!/bin/sh
# Agreement with Roo Code's own loading of .roomodes (issue #38): for each
# workspace folder given, scripts/agree/roo-validate.mjs (Roo Code's steps
# with npm @roo-code/types@1.115.0, whose mode schema is
# RooCodeInc/Roo-Code@cb836567's, and npm yaml 2) against
# `ahpls check --targets roo` on the folder's root .roomodes.
# Prints one row per folder: the folder, Roo's verdict (loads N, none),
# ahpls' verdict (fail: a roomodes finding at Error; pass), the step that
# decided for Roo, the ahpls rules found and Roo's issues.
#
#   AHPLS=ahpls scripts/agree/roo-validate.sh DIR... > rows.tsv
#
# The npm packages are installed once into ROO_JUDGE (default: a folder in
# the user's cache), never into the repository.
set -u
: "${AHPLS:=ahpls}" "${ROO_JUDGE:=${XDG_CACHE_HOME:-$HOME/.cache}/ahpls-roo-judge}"
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$ROO_JUDGE/node_modules/@roo-code/types" ] || [ ! -d "$ROO_JUDGE/node_modules/yaml" ]; then
  mkdir -p "$ROO_JUDGE"
  (cd "$ROO_JUDGE" && npm install --no-audit --no-fund --silent @roo-code/types@1.115.0 yaml@2) >&2 || exit 2
fi
cp "$here/roo-validate.mjs" "$ROO_JUDGE/roo-validate.mjs"
for dir in "$@"; do
  ws=$(cd "$dir" && pwd)
  [ -f "$ws/.roomodes" ] || continue
  roo=$(node "$ROO_JUDGE/roo-validate.mjs" "$ws/.roomodes")
  verdict=$(printf '%s' "$roo" | cut -f2)
  step=$(printf '%s' "$roo" | cut -f3)
  issues=$(printf '%s' "$roo" | cut -f4-)
  found=$(cd "$ws" && "$AHPLS" check --targets roo --fail-on never .roomodes 2>/dev/null | grep -oE '(error|warning|info|hint): .*\[roomodes/[a-z-]+\]')
  rules=$(printf '%s\n' "$found" | grep -oE 'roomodes/[a-z-]+' | sort -u | tr '\n' ' ')
  a=pass
  if printf '%s\n' "$found" | grep -q '^error: '; then a=fail; fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$ws" "$verdict" "$a" "$step" "$rules" "$issues"
done
