#!/bin/sh
# Agreement with Cursor's own marketplace validator (issue #38): for every
# .cursor-plugin/marketplace.json below the given folders, Cursor's
# scripts/validate-plugins.mjs (repository cursor/plugins, read from a git
# mirror at a pinned commit, never copied here) against `ahpls check
# --targets cursor`. Prints one row per marketplace (file `*`) and one per
# file the validator reads (the marketplace, then the manifest of each listed
# local plugin): folder, file, validator verdict (pass, fail), ahpls verdict
# (fail: a cumarket/* finding in the marketplace, or a cuplugin/* finding in
# the manifest of a plugin it lists; pass), the number of validator errors
# and of ahpls findings against the file (the `*` row: their sums), and on
# the `*` row the validator's words. A listed folder that is missing, has no manifest or names
# another plugin counts against the marketplace on both sides (the validator
# reports it per entry, ahpls as cumarket/source). The per-file rows are
# scripts/agree/cursor-compare.mjs.
#
#   CURSOR_PLUGINS=<git dir of cursor/plugins> CURSOR_COMMIT=195d9359 \
#   NODE_MODULES=<folder holding ajv and ajv-formats> AHPLS=ahpls \
#   scripts/agree/cursor-validate.sh DIR... > rows.tsv
#
# The validator resolves everything from the folder above its own, so each
# marketplace's root is copied to a scratch folder (without .git and
# node_modules) with the validator and its two schemas placed beside it.
set -u
: "${CURSOR_PLUGINS:?set CURSOR_PLUGINS to a git dir of cursor/plugins}" "${NODE_MODULES:?set NODE_MODULES}"
: "${CURSOR_COMMIT:=195d9359}" "${AHPLS:=ahpls}"
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for root in "$@"; do
  find "$root" -path '*/.cursor-plugin/marketplace.json' -not -path '*/node_modules/*' -not -path '*/.git/*' | sort | while read -r f; do
    mroot=$(cd "$(dirname "$f")/.." && pwd)
    work="$scratch/m"
    rm -rf "$work" && mkdir -p "$work/scripts" "$work/schemas"
    (cd "$mroot" && tar --exclude=.git --exclude=node_modules -cf - .) | (cd "$work" && tar -xf -)
    rm -rf "$work/scripts" "$work/schemas" && mkdir -p "$work/scripts" "$work/schemas"
    git --git-dir="$CURSOR_PLUGINS" show "$CURSOR_COMMIT:scripts/validate-plugins.mjs" > "$work/scripts/validate-plugins.mjs"
    for s in plugin marketplace; do
      git --git-dir="$CURSOR_PLUGINS" show "$CURSOR_COMMIT:schemas/$s.schema.json" > "$work/schemas/$s.schema.json"
    done
    ln -s "$NODE_MODULES" "$work/node_modules"
    words=$(cd "$work" && timeout 120 node scripts/validate-plugins.mjs 2>&1)
    (cd "$mroot" && "$AHPLS" check --targets cursor --fail-on never --format json . 2>/dev/null) > "$scratch/ahpls.json"
    printf '%s\n' "$words" > "$scratch/words"
    node "$here/cursor-compare.mjs" "$mroot" "$scratch/words" "$scratch/ahpls.json" > "$scratch/rows"
    v=fail
    case "$words" in *"All plugins validated successfully"*) v=pass ;; esac
    a=pass
    cut -f3 "$scratch/rows" | grep -q fail && a=fail
    vn=$(awk -F'\t' '{s+=$4} END{print s+0}' "$scratch/rows")
    an=$(awk -F'\t' '{s+=$5} END{print s+0}' "$scratch/rows")
    printf '%s\t*\t%s\t%s\t%s\t%s\t%s\n' "$mroot" "$v" "$a" "$vn" "$an" "$(echo "$words" | tr '\n\t' '  ' | cut -c1-200)"
    sed "s|^|$mroot\t|" "$scratch/rows"
  done
done
