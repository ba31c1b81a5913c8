//go:build !windows

package tools

var platformEnvAllow []string

func envKey(k string) string { return k }
