package tools

import (
	"sort"
	"strings"
)

// DefaultEnvAllow is the part of ahpls's own environment every command tool
// inherits. Everything else (tokens, cloud credentials, SSH agent sockets,
// editor internals) stays out unless a tool names it in inheritEnv or sets
// it in env. The list is what ordinary command-line programs need to find
// programs, the home directory, the locale and a temp directory.
var DefaultEnvAllow = []string{
	"PATH", "HOME", "USER", "LOGNAME",
	"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
	"TZ", "TMPDIR",
}

// On Windows, programs also need the system's own variables (without
// SYSTEMROOT even Go programs cannot open sockets), and names are
// case-insensitive ("Path" is PATH); env_windows.go adds both.

// buildEnv returns the child environment: the allow-listed and inherited
// variables of base, then the explicit additions (which win), sorted.
func buildEnv(base []string, inherit []string, add map[string]string) []string {
	allowed := make(map[string]bool, len(DefaultEnvAllow)+len(platformEnvAllow)+len(inherit))
	for _, list := range [][]string{DefaultEnvAllow, platformEnvAllow, inherit} {
		for _, k := range list {
			allowed[envKey(k)] = true
		}
	}
	vals := map[string]string{} // envKey → "NAME=value" as spelled
	for _, kv := range base {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || !allowed[envKey(k)] {
			continue
		}
		vals[envKey(k)] = kv // later duplicates win, as in os/exec
	}
	for k, v := range add {
		vals[envKey(k)] = k + "=" + v
	}
	out := make([]string, 0, len(vals))
	for _, kv := range vals {
		out = append(out, kv)
	}
	sort.Strings(out)
	return out
}
