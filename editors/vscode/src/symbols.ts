// Document symbols in VS Code. Its built-in Markdown and JSON language
// features already list every heading of a Markdown file and every key of a
// JSON file, and Go to Symbol and the Outline show each provider's answer:
// ahpls's answer would list each heading or key twice (86 entries for the 55
// lines of a marketplace.json) and add an Outline level named after the
// extension. Other clients (Neovim) keep the server's symbols, which are the
// only ones there.

/** Whether VS Code's own provider should be the only one for this language. */
export function leaveSymbolsToVSCode(languageId: string): boolean {
  return languageId === 'markdown' || languageId === 'json' || languageId === 'jsonc';
}
