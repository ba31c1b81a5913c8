// Workspace-trust gating of tool execution. ahpls runs client tools on behalf
// of an agent host; a cloned repository must not be able to switch that on by
// shipping `"ahpls.trustWorkspaceTools": true` in .vscode/settings.json, so the
// opt-in counts only while VS Code trusts the workspace.

/** Whether the server may run workspace tools. */
export function gateToolTrust(requested: boolean, workspaceTrusted: boolean): boolean {
  return requested && workspaceTrusted;
}

/** One line for the host-connection view and the status bar tooltip. */
export function describeToolTrust(requested: boolean, workspaceTrusted: boolean): string {
  if (!requested) {
    return 'Workspace tools: off (ahpls.trustWorkspaceTools is false).';
  }
  if (!workspaceTrusted) {
    return 'Workspace tools: off until you trust this workspace.';
  }
  return 'Workspace tools: on (trusted workspace).';
}
