// Glob helpers for VS Code's file search.
//
// workspace.findFiles hands its include pattern to ripgrep, whose glob parser
// refuses nested alternate groups ("nested alternate groups are not allowed").
// A union of patterns that themselves use {a,b} must therefore be flattened
// first: each pattern's alternatives become members of the one outer group.

/** Every path form a pattern's {a,b} groups stand for, in order, duplicates removed. */
export function alternatives(pattern: string): string[] {
  const open = pattern.indexOf('{');
  if (open < 0) {
    return [pattern];
  }
  let depth = 0;
  let close = -1;
  const cuts: number[] = [];
  for (let i = open; i < pattern.length && close < 0; i++) {
    const c = pattern[i];
    if (c === '{') {
      depth++;
    } else if (c === '}') {
      depth--;
      if (depth === 0) {
        close = i;
      }
    } else if (c === ',' && depth === 1) {
      cuts.push(i);
    }
  }
  if (close < 0) {
    return [pattern]; // unbalanced: left to the glob parser to report
  }
  const head = pattern.slice(0, open);
  const tail = pattern.slice(close + 1);
  const bounds = [open, ...cuts, close];
  const out: string[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) {
    for (const inner of alternatives(pattern.slice(bounds[k] + 1, bounds[k + 1]))) {
      out.push(...alternatives(head + inner + tail));
    }
  }
  return [...new Set(out)];
}

/** One glob matching any of the patterns, with no nested alternate group. */
export function unionGlob(patterns: readonly string[]): string {
  const flat = [...new Set(patterns.flatMap(alternatives))];
  return flat.length === 1 ? flat[0] : `{${flat.join(',')}}`;
}
