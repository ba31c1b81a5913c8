package tools

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrOutsideWorkspace is wrapped by every refusal to use a path that does
// not stay inside the workspace root.
var ErrOutsideWorkspace = errors.New("outside the workspace")

// within reports whether p (absolute, clean, symlink-free) is root or below.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}

// checkRelative is the lexical part of confinement, usable without touching
// the disk (config validation): rel must be relative and must not climb out.
func checkRelative(rel string) error {
	if rel == "" {
		return nil
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "~") {
		return fmt.Errorf("%q must be relative to the workspace root: %w", rel, ErrOutsideWorkspace)
	}
	c := filepath.Clean(rel)
	if c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%q climbs out of the workspace: %w", rel, ErrOutsideWorkspace)
	}
	return nil
}

// resolveInside resolves rel against the workspace root realRoot (already
// symlink-free) and returns the symlink-free absolute path, refusing
// anything that ends up outside. The path must exist.
//
// Checking and then using a path leaves a window in which a component could
// be swapped for a symlink; we pass the resolved path on, so only an
// attacker already writing inside the workspace concurrently could exploit
// it, and such an attacker can edit the tools anyway.
func resolveInside(realRoot, rel string) (string, error) {
	if err := checkRelative(rel); err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(filepath.Join(realRoot, rel))
	if err != nil {
		return "", fmt.Errorf("cannot resolve %q in the workspace: %w", rel, err)
	}
	if !within(realRoot, real) {
		return "", fmt.Errorf("%q resolves to %s: %w", rel, real, ErrOutsideWorkspace)
	}
	return real, nil
}

// resolveProgram finds argv[0]. A bare name (no '/') is looked up in the
// PATH of the child's environment, skipping relative PATH entries so that a
// "." in PATH cannot make the workspace shadow system commands. A name with
// '/' (or '\\' on Windows) is a workspace-relative path confined like the
// working directory.
func resolveProgram(realRoot, name string, env []string) (string, error) {
	if name == "" {
		return "", errors.New("empty program name")
	}
	if strings.ContainsAny(name, pathSeps) {
		p, err := resolveInside(realRoot, name)
		if err != nil {
			return "", err
		}
		for _, c := range programCandidates(p) {
			if checkExecutable(c) == nil {
				return c, nil
			}
		}
		return "", checkExecutable(p)
	}
	path := ""
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && envKey(k) == "PATH" {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		for _, p := range programCandidates(filepath.Join(dir, name)) {
			if checkExecutable(p) == nil {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("program %q not found in PATH", name)
}
