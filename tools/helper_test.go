package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The tests run real subprocesses: TestMain builds the helper program in
// testdata/helper (its own tiny module, no dependencies) into helperBin.
// Tools find it through PATH, exactly like a bare command in a real config.
// It is built without -race even under `go test -race`, because a
// race-enabled binary sleeps a second at exit.
const helperName = "ahplshelper"

var helperBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ahpls-tools-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	exe := filepath.Join(dir, helperName)
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	build := exec.Command("go", "build", "-o", exe, ".")
	build.Dir = filepath.Join("testdata", "helper")
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the test helper: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	helperBin = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testEnviron is the environment tests give the Registry: a PATH that
// finds the helper and the usual tools, HOME for go, and a secret that must
// not leak into tools.
func testEnviron() []string {
	return []string{
		"PATH=" + strings.Join([]string{helperBin, "/usr/local/go/bin", "/usr/bin", "/bin"}, string(os.PathListSeparator)),
		"HOME=" + os.Getenv("HOME"),
		"GOCACHE=" + goEnv("GOCACHE"),
		"GOMODCACHE=" + goEnv("GOMODCACHE"),
		"GOPATH=" + goEnv("GOPATH"),
		"AHPLS_TEST_SECRET=hunter2",
	}
}

func goEnv(k string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	out, _ := exec.Command("go", "env", k).Output()
	return strings.TrimSpace(string(out))
}

// newTestRegistry makes a trusted registry on root with the given config.
func newTestRegistry(t *testing.T, root, config string) *Registry {
	t.Helper()
	r, err := NewRegistry(Options{Root: root, Trusted: true, Environ: testEnviron()})
	require.NoError(t, err)
	probs := r.SetWorkspaceConfig([]byte(config))
	for _, p := range probs {
		require.NotEqual(t, SeverityError, p.Severity, "config problem: %+v", p)
	}
	return r
}

// proc is one line of /proc/<pid>/stat.
type proc struct {
	pid, ppid, pgrp int
	state           byte
}

func (p proc) alive() bool { return p.state != 'Z' && p.state != 'X' }

func procs(t *testing.T) map[int]proc {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	require.NoError(t, err)
	out := map[int]proc{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')') // comm may contain spaces and ')'
		if i < 0 || i+2 >= len(s) {
			continue
		}
		f := strings.Fields(s[i+2:])
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		out[pid] = proc{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0][0]}
	}
	return out
}

// strays lists live processes that are in group pgid (if > 0) or descend
// from this test process.
func strays(t *testing.T, pgid int) []proc {
	all := procs(t)
	me := os.Getpid()
	var out []proc
	for _, p := range all {
		if !p.alive() || p.pid == me {
			continue
		}
		if pgid > 0 && p.pgrp == pgid {
			out = append(out, p)
			continue
		}
		for q, hops := p, 0; q.ppid > 1 && hops < 64; hops++ {
			if q.ppid == me {
				out = append(out, p)
				break
			}
			next, ok := all[q.ppid]
			if !ok {
				break
			}
			q = next
		}
	}
	return out
}

// children lists our direct children, zombies included (an unreaped child
// is a leak too).
func children(t *testing.T) []proc {
	var out []proc
	for _, p := range procs(t) {
		if p.ppid == os.Getpid() {
			out = append(out, p)
		}
	}
	return out
}

// waitFor polls cond until it holds; it fails the test only if it never
// does within a generous bound, so it is a wait, not a timing assertion.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(ents)
}
