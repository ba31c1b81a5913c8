// Per-file comparison for cursor-validate.sh: given a marketplace root, the
// validator's words and `ahpls check --format json` of that root, prints one
// row per file the validator reads (the marketplace, then the manifest of each
// listed local plugin that exists): file, validator verdict, ahpls verdict, and how many
// errors the validator and findings ahpls report against the file (a schema
// error is one line under its ERROR, each other ERROR one). A finding
// about a listed folder (missing, no manifest, another name) belongs to the
// marketplace on both sides: the validator reports it per entry, ahpls as
// cumarket/source on the entry. ahpls' cuplugin findings count only in the
// manifests of listed plugins, as the validator reads no other.
import { existsSync, readFileSync } from "fs";
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
  byName.set(e.name, p);
  // a missing manifest is the marketplace's error on both sides
  if (!files.includes(p) && existsSync(resolve(mroot, p))) files.push(p);
}
const v = new Set();
const vn = new Map();
const count = (m, f) => m.set(f, (m.get(f) ?? 0) + 1);
if (!words.includes("All plugins validated successfully")) {
  let cur = null;
  for (const line of words.split("\n")) {
    const pm = line.match(/^ERROR: Plugin "([^"]*)": (source directory|missing \.cursor-plugin|marketplace name does not match|plugin\.json schema validation failed)/);
    if (line.startsWith("ERROR: marketplace.json schema validation failed")) {
      cur = mfile;
    } else if (pm && pm[2] === "plugin.json schema validation failed") {
      cur = byName.get(pm[1]) ?? mfile;
    } else if (pm) {
      cur = null;
      v.add(mfile);
      count(vn, mfile);
    } else if (/SyntaxError|marketplace\.json not found/.test(line)) {
      cur = null;
      v.add(mfile);
      count(vn, mfile);
    } else if (cur && line.startsWith("  /")) {
      v.add(cur);
      count(vn, cur);
    }
  }
}
const a = new Set();
const an = new Map();
let found = [];
try {
  found = JSON.parse(readFileSync(ahplsFile, "utf-8")).findings ?? [];
} catch {
  found = [];
}
for (const f of found) {
  const rel = f.rel ?? f.path;
  if ((f.rule.startsWith("cumarket/") && rel === mfile) || (f.rule.startsWith("cuplugin/") && files.includes(rel) && rel !== mfile)) {
    a.add(rel);
    count(an, rel);
  }
}
for (const f of files) {
  console.log(`${f}\t${v.has(f) ? "fail" : "pass"}\t${a.has(f) ? "fail" : "pass"}\t${vn.get(f) ?? 0}\t${an.get(f) ?? 0}`);
}
