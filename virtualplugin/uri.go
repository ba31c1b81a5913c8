package virtualplugin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"path/filepath"
	"strings"
)

// Scheme and authority of every URI ahpls publishes.
const uriPrefix = "virtual://ahpls/"

// maxURILength bounds what a host may ask for; longer URIs are refused
// before any parsing.
const maxURILength = 4096

// FolderKey is the stable 8-hex-digit key of a workspace folder used in
// plugin URIs: unique per folder, the same across restarts and machines
// that open the same path, and free of client ids, nonces and pids (hosts
// key cached copies and enablement decisions by the URI).
func FolderKey(folder string) string {
	u := FolderURI(folder)
	sum := sha256.Sum256([]byte(u))
	return hex.EncodeToString(sum[:4])
}

// FolderURI is the file:// URI of an absolute folder path.
func FolderURI(folder string) string {
	folder = filepath.Clean(folder)
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(folder)}).String()
}

// PluginURI is the URI of a plugin published from a folder.
func PluginURI(folderKey, name string) string {
	return uriPrefix + folderKey + "/" + name
}

var (
	errNotVirtual = errors.New("not a virtual:// ahpls URI")
	errBadPath    = errors.New("path is not a plain relative path inside the plugin")
)

// parseURI splits a virtual URI into its plugin key ("<folder>/<name>") and
// the slash path inside the plugin ("" for the root). It accepts only plain
// paths: no `.` or `..` segments, empty segments, backslashes, control
// characters, query or fragment, and no percent-escape that decodes to a
// separator, a dot segment or a control character.
func parseURI(raw string) (pluginKey, vpath string, err error) {
	if len(raw) > maxURILength {
		return "", "", errBadPath
	}
	if !strings.HasPrefix(raw, uriPrefix) {
		return "", "", errNotVirtual
	}
	rest := strings.TrimPrefix(raw, uriPrefix)
	if strings.ContainsAny(rest, "?#\\") {
		return "", "", errBadPath
	}
	segs := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	if len(segs) < 2 {
		return "", "", errBadPath
	}
	for i, s := range segs {
		dec, err := url.PathUnescape(s)
		if err != nil {
			return "", "", errBadPath
		}
		if dec == "" || dec == "." || dec == ".." || strings.ContainsAny(dec, "/\\") {
			return "", "", errBadPath
		}
		for _, r := range dec {
			if r < 0x20 || r == 0x7f {
				return "", "", errBadPath
			}
		}
		segs[i] = dec
	}
	return segs[0] + "/" + segs[1], strings.Join(segs[2:], "/"), nil
}
