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

// buildEnv returns the child environment: the allow-listed and inherited
// variables of base, then the explicit additions (which win), sorted.
func buildEnv(base []string, inherit []string, add map[string]string) []string {
	allowed := make(map[string]bool, len(DefaultEnvAllow)+len(inherit))
	for _, k := range DefaultEnvAllow {
		allowed[k] = true
	}
	for _, k := range inherit {
		allowed[k] = true
	}
	vals := map[string]string{}
	for _, kv := range base {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !allowed[k] {
			continue
		}
		vals[k] = v // later duplicates win, as in os/exec
	}
	for k, v := range add {
		vals[k] = v
	}
	out := make([]string, 0, len(vals))
	for k, v := range vals {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
