// Roo Code's own judge of a .roomodes (issue #38): for each file given, the
// steps Roo Code's CustomModesManager takes at RooCodeInc/Roo-Code@cb836567
// (parseYamlSafely, then loadModesFromFile), with the schema of npm
// @roo-code/types 1.115.0 (its mode.ts is cb836567's) and npm yaml 2.
// Written for ahpls from those steps; no Roo Code source is copied.
//
//   node roo-validate.mjs FILE...   (with @roo-code/types and yaml installed
//                                    where Node resolves them)
//
// Prints one tab-separated row per file: the path, "loads N" or "none",
// the step that decided (yaml, json, parse-error, no-customModes, schema),
// and the schema's issues as path: message, joined by " | ".
import { readFileSync } from "node:fs";
import { parse as parseYAML } from "yaml";
import { customModesSettingsSchema } from "@roo-code/types";

// The characters Roo Code replaces before YAML (CustomModesManager.ts,
// cleanInvisibleCharacters): what each becomes.
const replacements = new Map([
  ["\u00A0", " "],
  ["\u200B", ""], ["\u200C", ""], ["\u200D", ""],
  ["\u2018", "'"], ["\u2019", "'"],
  ["\u201C", '"'], ["\u201D", '"'],
  ...["\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212"].map((c) => [c, "-"]),
]);

function clean(text) {
  const noBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let out = "";
  for (const ch of noBom) out += replacements.has(ch) ? replacements.get(ch) : ch;
  return out;
}

// read is parseYamlSafely for a .roomodes: YAML of the cleaned text, else
// JSON of the original, else nothing ({}).
function read(text) {
  try {
    return { via: "yaml", value: parseYAML(clean(text)) ?? {} };
  } catch (yamlError) {
    try {
      return { via: "json", value: JSON.parse(text) };
    } catch {
      return { via: "parse-error", value: {}, error: String(yamlError.message).split("\n")[0] };
    }
  }
}

function judge(path) {
  const text = readFileSync(path, "utf8");
  const { via, value, error } = read(text);
  if (error) return [path, "none", via, error];
  if (!value || typeof value !== "object" || !value.customModes) return [path, "none", "no-customModes", ""];
  const result = customModesSettingsSchema.safeParse(value);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join(" | ");
    return [path, "none", "schema", issues];
  }
  return [path, `loads ${result.data.customModes.length}`, via, ""];
}

for (const path of process.argv.slice(2)) {
  let row;
  try {
    row = judge(path);
  } catch (e) {
    row = [path, "none", "read-error", String(e.message)];
  }
  console.log(row.map((c) => String(c).replace(/[\t\n]/g, " ")).join("\t"));
}
