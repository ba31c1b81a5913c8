package ahpclient

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

var clientIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ahpls-[0-9a-f]{12}$`) })

// StableClientID returns the clientId for a workspace: "ahpls-<12 hex>",
// random on first use and persisted under stateDir, keyed by workspaceKey
// (e.g. the sorted workspace folder URIs). A restart of the same workspace
// gets the same id back, so its reconnect lands within the host's grace
// period and keeps the active-client slot; another workspace gets another id,
// so two instances never overwrite each other's activeClients entry.
func StableClientID(stateDir, workspaceKey string) (string, error) {
	if stateDir == "" {
		return "", fmt.Errorf("ahpclient: no state directory for the client id")
	}
	sum := sha256.Sum256([]byte(workspaceKey))
	path := filepath.Join(stateDir, "clientid-"+hex.EncodeToString(sum[:8]))
	if b, err := os.ReadFile(path); err == nil {
		if id := strings.TrimSpace(string(b)); clientIDPattern().MatchString(id) {
			return id, nil
		}
	}
	var r [6]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", err
	}
	id := "ahpls-" + hex.EncodeToString(r[:])
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return "", fmt.Errorf("ahpclient: state dir: %w", err)
	}
	// Write-then-rename so a crash never leaves a half-written id behind.
	tmp, err := os.CreateTemp(stateDir, ".clientid-*")
	if err != nil {
		return "", err
	}
	if _, err := tmp.WriteString(id + "\n"); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return id, nil
}
