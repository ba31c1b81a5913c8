#!/usr/bin/env bash
# The logic of the composite GitHub Action (action.yml): build or take an
# ahpls binary, run `ahpls check`, optionally write SARIF for upload, and
# exit with ahpls's code. Inputs arrive as environment variables (never
# interpolated into the script, so an input cannot inject shell):
#
#   AHPLS_BIN       a prebuilt ahpls binary; empty = build from ACTION_PATH
#   ACTION_PATH     the action's checkout (the ahpls repository)
#   INPUT_PATHS     files and folders to check, whitespace-separated (default .)
#   INPUT_TARGETS   comma-separated targets (empty = ahpls's default)
#   INPUT_FAIL_ON   error | warning | info | hint | never (default error)
#   INPUT_FORMAT    text | json | sarif for the log (default text)
#   INPUT_SARIF     a file to write a SARIF log to (empty = none)
#   INPUT_ARGS      extra flags for ahpls check, whitespace-separated
#   GITHUB_OUTPUT   set by Actions: receives exit-code and sarif-file
#
# Tested by check/action_test.go with a real binary and a real workspace.
set -euo pipefail

bin="${AHPLS_BIN:-}"
if [ -z "$bin" ]; then
  src="${ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}"
  out="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/ahpls-action-bin"
  mkdir -p "$out"
  echo "building ahpls from $src" >&2
  (cd "$src" && go build -o "$out/ahpls" ./cmd/ahpls)
  bin="$out/ahpls"
fi
if [ ! -x "$bin" ]; then
  echo "ahpls-action: $bin is not an executable" >&2
  exit 2
fi

read -r -a paths <<<"${INPUT_PATHS:-.}"
[ "${#paths[@]}" -gt 0 ] || paths=(.)
args=(check --fail-on "${INPUT_FAIL_ON:-error}")
if [ -n "${INPUT_TARGETS:-}" ]; then
  args+=(--targets "$INPUT_TARGETS")
fi
extra=()
if [ -n "${INPUT_ARGS:-}" ]; then
  read -r -a extra <<<"$INPUT_ARGS"
fi

if [ -n "${INPUT_SARIF:-}" ]; then
  mkdir -p "$(dirname "$INPUT_SARIF")"
  # The SARIF log never fails the step by itself; the run below decides
  # (and annotates: GITHUB_ACTIONS=false keeps this pass's security notices
  # plain lines, so each shows once as an annotation).
  code=0
  GITHUB_ACTIONS=false "$bin" "${args[@]}" "${extra[@]}" --format sarif --fail-on never -- "${paths[@]}" >"$INPUT_SARIF" || code=$?
  if [ "$code" -ne 0 ]; then
    echo "ahpls-action: writing SARIF failed (exit $code)" >&2
    exit "$code"
  fi
fi

code=0
"$bin" "${args[@]}" "${extra[@]}" --format "${INPUT_FORMAT:-text}" -- "${paths[@]}" || code=$?
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "exit-code=$code"
    echo "sarif-file=${INPUT_SARIF:-}"
  } >>"$GITHUB_OUTPUT"
fi
exit "$code"
