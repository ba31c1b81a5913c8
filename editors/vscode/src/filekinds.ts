// Which files ahpls cares about (customization-formats.md §2.1), as VS Code glob
// patterns. The document selector is deliberately a little wider than the
// server's classifier (plugin agents/commands folders cannot be told apart by a
// glob); the server ignores files that are not ours. Activation is narrower:
// only paths that are certainly customization files start the server.

/** Document selector patterns (file scheme), matched against the absolute path. */
export const DOCUMENT_PATTERNS: readonly string[] = [
  '**/SKILL.md',
  '**/skill.md',
  '**/*.agent.md',
  '**/*.chatmode.md',
  '**/*.prompt.md',
  '**/*.instructions.md',
  '**/copilot-instructions.md',
  '**/.github/agents/**/*.md',
  '**/.claude/agents/**/*.md',
  '**/.claude/commands/**/*.md',
  '**/.claude/rules/**/*.md',
  '**/output-styles/**/*.md',
  '**/.github/workflows/copilot-setup-steps.yml',
  '**/agents/**/*.md',
  '**/commands/**/*.md',
  '**/{AGENTS,CLAUDE,CLAUDE.local,GEMINI}.md',
  '**/{hooks,plugin,marketplace,mcp,.mcp}.json',
  '**/.github/hooks/*.json',
  '**/.claude/settings.json',
  '**/.claude/settings.local.json',
  '**/.github/copilot/settings.json',
];

/** `workspaceContains:` patterns; package.json's activationEvents must list exactly these. */
export const ACTIVATION_PATTERNS: readonly string[] = [
  '**/SKILL.md',
  '**/*.agent.md',
  '**/*.chatmode.md',
  '**/*.prompt.md',
  '**/*.instructions.md',
  '**/.github/copilot-instructions.md',
  '**/.github/agents/*.md',
  '**/.claude/agents/**/*.md',
  '**/.claude/commands/**/*.md',
  '**/.claude/rules/**/*.md',
  '**/.github/hooks/*.json',
  '**/hooks/hooks.json',
  '**/hooks.json',
  '**/.mcp.json',
  '**/.plugin/plugin.json',
  '**/.claude-plugin/plugin.json',
  '**/.github/plugin/plugin.json',
  'plugin.json',
  '**/.plugin/marketplace.json',
  '**/.claude-plugin/marketplace.json',
  '**/.github/plugin/marketplace.json',
  'marketplace.json',
  '**/.claude/settings.json',
  '**/.github/copilot/settings.json',
  '**/AGENTS.md',
  '**/CLAUDE.md',
];

/**
 * Languages whose files may be customization files. Activating on them lets a
 * SKILL.md opened on its own (no folder, or a folder without any) work; the
 * extension starts the server only once a file matching DOCUMENT_PATTERNS is open.
 */
export const ACTIVATION_LANGUAGES: readonly string[] = ['markdown', 'json', 'jsonc'];

export function activationEvents(): string[] {
  return [...ACTIVATION_LANGUAGES.map((l) => `onLanguage:${l}`), ...ACTIVATION_PATTERNS.map((p) => `workspaceContains:${p}`)];
}
