#!/usr/bin/env bash
# An independent MCP client against `ahpls mcp` (issue #33): the MCP
# Inspector's CLI mode (npm @modelcontextprotocol/inspector) lists the tools
# and calls `check` on a workspace with a broken skill. The Inspector is
# installed with npm into a cache folder (AHPLS_CI_CACHE, default
# ~/.cache/ahpls-ci), so a rerun does not download it again. Fails when
# either call fails, returns a tool error or misses the finding. Needs
# node/npm and Go; builds bin/ahpls and bin/ahpls-mcp. Called from .ci/run.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
version=0.21.1
cache="${AHPLS_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ahpls-ci}/inspector-$version"
inspector="$cache/node_modules/.bin/mcp-inspector"
if [ ! -x "$inspector" ]; then
  echo "== npm install @modelcontextprotocol/inspector@$version into $cache"
  mkdir -p "$cache"
  [ -f "$cache/package.json" ] || echo '{"private": true}' >"$cache/package.json"
  (cd "$cache" && npm install --no-audit --no-fund --silent "@modelcontextprotocol/inspector@$version")
fi
(cd "$repo" && go build -o bin/ahpls ./cmd/ahpls && go build -o bin/ahpls-mcp ./cmd/ahpls-mcp)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ws/.github/skills/pdf"
# A byte-order mark before the header: fm/bom, which has a safe fix.
printf '\xef\xbb\xbf---\nname: pdf\ndescription: Extracts text from PDF files. Use for PDFs.\n---\n# PDF\n' \
  >"$tmp/ws/.github/skills/pdf/SKILL.md"
cd "$tmp/ws"

"$inspector" --cli "$repo/bin/ahpls" mcp --method tools/list >"$tmp/list.json"
"$inspector" --cli "$repo/bin/ahpls" mcp --method tools/call --tool-name check \
  --tool-arg 'paths=[".github/skills/pdf/SKILL.md"]' >"$tmp/call.json"

node - "$tmp/list.json" "$tmp/call.json" <<'JS'
const fs = require("fs");
const [list, call] = process.argv.slice(2).map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
const fail = (msg) => { console.error("test-mcp-inspector: " + msg); process.exit(1); };
const names = list.tools.map((t) => t.name).sort();
for (const want of ["check", "explain", "fix", "list_customizations"]) {
  if (!names.includes(want)) fail(`tools/list has no ${want}: ${names}`);
}
const check = list.tools.find((t) => t.name === "check");
if (!check.annotations || check.annotations.readOnlyHint !== true) fail("check is not marked readOnlyHint");
if (call.isError) fail("check returned a tool error: " + JSON.stringify(call.content));
const f = (call.structuredContent.findings || []).find((f) => f.rule === "fm/bom");
if (!f) fail("check did not report fm/bom: " + JSON.stringify(call.structuredContent));
if (!f.fixes || !f.fixes.some((x) => x.safe)) fail("fm/bom has no safe fix: " + JSON.stringify(f));
console.log(`test-mcp-inspector: ok (${names.length} tools; check found ${call.structuredContent.total} finding(s), fm/bom with a safe fix)`);
JS
