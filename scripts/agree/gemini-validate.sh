#!/bin/sh
# Agreement with Gemini CLI's own judge (issue #38): for every
# gemini-extension.json below the given folders, `gemini extensions validate`
# (npm @google/gemini-cli) against `ahpls check --targets gemini-cli`.
# Prints one row per extension: folder, validator verdict (pass, warn, fail),
# ahpls verdict (fail: a gext finding at Warning or above other than
# gext/version; warn: only gext/version; pass), and the validator's words.
#
#   GEMINI=node_modules/.bin/gemini AHPLS=ahpls scripts/agree/gemini-validate.sh DIR... > rows.tsv
#
# The validator runs with HOME in a scratch folder and the cwd outside the
# extension, so no user or workspace setting changes its answer.
set -u
: "${GEMINI:?set GEMINI to the gemini binary}" "${AHPLS:=ahpls}"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for root in "$@"; do
  find "$root" -name gemini-extension.json -not -path '*/node_modules/*' -not -path '*/.git/*' | sort | while read -r f; do
    ext=$(cd "$(dirname "$f")" && pwd)
    words=$(cd "$scratch" && HOME="$scratch" timeout 120 "$GEMINI" extensions validate "$ext" 2>&1)
    case "$words" in
      *"successfully validated"*) case "$words" in *"Validation warnings"*) v=warn ;; *) v=pass ;; esac ;;
      *) v=fail ;;
    esac
    found=$("$AHPLS" check --targets gemini-cli --fail-on never "$f" 2>/dev/null | grep -oE '(error|warning): .*\[gext/[a-z-]+\]' | grep -oE 'gext/[a-z-]+' | sort -u)
    a=pass
    if echo "$found" | grep -qv -e '^gext/version$' -e '^$'; then a=fail; elif [ -n "$found" ]; then a=warn; fi
    printf '%s\t%s\t%s\t%s\n' "$ext" "$v" "$a" "$(echo "$words" | tr '\n\t' '  ' | cut -c1-160)"
  done
done
