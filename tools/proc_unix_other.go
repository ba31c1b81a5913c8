//go:build unix && !linux

package tools

import "os/exec"

// prepareTree adds nothing outside Linux. macOS and the BSDs have neither
// Pdeathsig nor a child subreaper: a tool process survives an ahpls that is
// killed with SIGKILL (a normal ahpls exit still cancels and kills every
// run), and a descendant that calls setsid leaves the process group and is
// not killed on cancel. README "Platforms" says so.
func prepareTree(*procTree, *exec.Cmd) {}

func sweepEscaped(*procTree) {}
