// Document symbols in VS Code. Its built-in Markdown extension already lists
// every heading of a Markdown file, and the Outline groups symbols by
// provider when more than one answers: ahpls's answer for a Markdown file
// would list each heading twice in Go to Symbol and add an Outline level
// named after the extension. Other clients (Neovim) keep the server's
// Markdown symbols; JSON files have no other provider of these symbols.

/** Whether VS Code's own provider should be the only one for this language. */
export function leaveSymbolsToVSCode(languageId: string): boolean {
  return languageId === 'markdown';
}
