#!/usr/bin/env bash
# progress.sh LABEL COMMAND [ARGS...]: runs COMMAND and says how long it has
# been running: a line when it starts, "still running" every
# $PROGRESS_EVERY seconds (default 30), so that steps which print nothing
# for minutes (cross builds, race-detector compiles, npm installs that build
# native modules) are not mistaken for a hang, and a line with its duration
# when it ends. Exits with the command's status.
set -uo pipefail
label="$1"
shift
every="${PROGRESS_EVERY:-30}"
start=$(date +%s)
echo "== $label"
(
  while sleep "$every"; do
    echo "   ... $label: still running ($(($(date +%s) - start))s)"
  done
) &
ticker=$!
"$@"
rc=$?
kill "$ticker" 2>/dev/null
wait "$ticker" 2>/dev/null
if [ "$rc" = 0 ]; then
  echo "== $label: done in $(($(date +%s) - start))s"
else
  echo "== $label: FAILED (exit $rc) after $(($(date +%s) - start))s"
fi
exit "$rc"
