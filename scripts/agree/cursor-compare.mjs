// Per-file comparison for cursor-validate.sh: given a marketplace root, the
// validator's words and `ahpls check --format json` of that root, prints one
// row per file the validator reads (the marketplace, then the manifest of each
// listed local plugin): file, validator verdict, ahpls verdict. A finding
// about a listed folder (missing, no manifest, another name) belongs to the
// marketplace on both sides: the validator reports it per entry, ahpls as
// cumarket/source on the entry. ahpls' cuplugin findings count only in the
// manifests of listed plugins, as the validator reads no other.
import { readFileSync } from "fs";
import { resolve, relative } from "path";

const [mroot, wordsFile, ahplsFile] = process.argv.slice(2);
const words = readFileSync(wordsFile, "utf-8");
const mfile = ".cursor-plugin/marketplace.json";
let entries = [];
try {
  const m = JSON.parse(readFileSync(resolve(mroot, mfile), "utf-8"));
  entries = Array.isArray(m.plugins) ? m.plugins : [];
} catch {
  // not JSON: the validator stops on it; only the marketplace row remains
}
const files = [mfile];
const byName = new Map();
for (const e of entries) {
  if (!e || typeof e.source !== "string" || typeof e.name !== "string") continue;
  const p = relative(mroot, resolve(mroot, e.source, ".cursor-plugin/plugin.json"));
  if (p.startsWith("..")) continue;
  if (!files.includes(p)) files.push(p);
  byName.set(e.name, p);
}
const v = new Set();
if (!words.includes("All plugins validated successfully")) {
  if (/marketplace\.json schema validation failed|SyntaxError|marketplace\.json not found/.test(words)) v.add(mfile);
  for (const m of words.matchAll(/Plugin "([^"]*)": (source directory|missing \.cursor-plugin|marketplace name does not match|plugin\.json schema validation failed)/g)) {
    if (m[2] === "plugin.json schema validation failed") v.add(byName.get(m[1]) ?? mfile);
    else v.add(mfile);
  }
}
const a = new Set();
let found = [];
try {
  found = JSON.parse(readFileSync(ahplsFile, "utf-8")).findings ?? [];
} catch {
  found = [];
}
for (const f of found) {
  const rel = f.rel ?? f.path;
  if (f.rule.startsWith("cumarket/") && rel === mfile) a.add(mfile);
  if (f.rule.startsWith("cuplugin/") && files.includes(rel) && rel !== mfile) a.add(rel);
}
for (const f of files) {
  console.log(`${f}\t${v.has(f) ? "fail" : "pass"}\t${a.has(f) ? "fail" : "pass"}`);
}
