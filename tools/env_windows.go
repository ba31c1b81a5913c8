package tools

import "strings"

// platformEnvAllow is what Windows programs need beyond DefaultEnvAllow:
// the system directories, the executable extensions cmd and PATH lookup
// use, the profile and temp directories.
var platformEnvAllow = []string{
	"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT",
	"USERPROFILE", "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA",
	"PROGRAMDATA", "PROGRAMFILES", "PROGRAMFILES(X86)", "COMMONPROGRAMFILES",
	"TEMP", "TMP", "USERNAME", "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "OS",
}

// envKey folds case: Windows environment names are case-insensitive.
func envKey(k string) string { return strings.ToUpper(k) }
