package tools

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// markerVar names the environment variable that tags every process of one
// run. Descendants inherit it through fork and exec, setsid does not touch
// it, and /proc/<pid>/environ shows it, so it tells which run an escaped
// process belongs to even when several runs are live. A process that
// scrubs its environment (env -i) and also leaves the group is not found;
// see the package comment.
const markerVar = "AHPLS_TOOL_RUN"

var (
	subreaperOnce sync.Once
	subreaper     bool // PR_SET_CHILD_SUBREAPER is in effect for ahpls
)

// prepareTree makes the leader die with ahpls (Pdeathsig; it fires when the
// forking OS thread exits, and the Go runtime only retires threads of
// goroutines that exit while locked to them, which ahpls does not do), tags
// the run's environment, and makes ahpls a child subreaper once: orphans
// of a tool (a daemonizing double fork, a setsid grandchild whose parent
// died) are then reparented to ahpls instead of init, so their ancestry
// still leads to us and sweepEscaped can find and reap them.
func prepareTree(t *procTree, cmd *exec.Cmd) {
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	subreaperOnce.Do(func() {
		subreaper = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
	})
	var b [16]byte
	_, _ = rand.Read(b[:])
	t.marker = hex.EncodeToString(b[:])
	cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], markerVar+"="+t.marker)
}

// sweepBudget bounds one sweep: a process in uninterruptible sleep cannot
// hold a finished call open for longer than this.
var sweepBudget = 2 * time.Second

// sweepEscaped kills and reaps what is left of run t after its group was
// killed: members of the group that were reparented to us (zombies to
// reap) and processes tagged with t's marker that left the group. It walks
// /proc in rounds, because killing a parent reparents its children to us
// and a process may fork while we look; it stops when a round finds
// nothing of t's left or the budget is spent.
func sweepEscaped(t *procTree) {
	if t.marker == "" {
		return
	}
	me := os.Getpid()
	needle := []byte("\x00" + markerVar + "=" + t.marker + "\x00")
	killed := map[int]bool{}
	deadline := time.Now().Add(sweepBudget)
	for pause := 100 * time.Microsecond; ; pause = min(2*pause, 10*time.Millisecond) {
		all := readProcTable()
		pending := false
		for pid, p := range all {
			if pid == me || pid <= 1 {
				continue
			}
			// With the subreaper in effect everything of ours descends
			// from us; without it orphans belong to init and only the
			// marker can tell, so every readable process is checked.
			if subreaper && !descendsFrom(all, pid, me) {
				continue
			}
			ours := p.pgrp == t.pgid || killed[pid]
			if !ours && p.state != 'Z' {
				ours = environHas(pid, needle)
			}
			if !ours {
				continue
			}
			if p.state != 'Z' && p.state != 'X' {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				killed[pid] = true
				pending = true
				continue
			}
			if p.ppid == me {
				// Ours, dead and adopted by us: reap it, or it stays a
				// zombie for the life of ahpls. Never wait4(-1): that
				// would steal the exit status of another run's leader.
				var ws syscall.WaitStatus
				if n, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); n != pid {
					pending = true
				}
			} else {
				pending = true // its parent reaps it or dies and hands it to us
			}
		}
		if !pending || time.Now().After(deadline) {
			return
		}
		time.Sleep(pause)
	}
}

// procEntry is what sweepEscaped needs of /proc/<pid>/stat.
type procEntry struct {
	ppid, pgrp int
	state      byte
}

func readProcTable() map[int]procEntry {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	out := make(map[int]procEntry, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')') // comm may hold spaces and ')'
		if i < 0 || i+2 >= len(s) {
			continue
		}
		f := strings.Fields(s[i+2:])
		if len(f) < 3 || f[0] == "" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		out[pid] = procEntry{ppid: ppid, pgrp: pgrp, state: f[0][0]}
	}
	return out
}

func descendsFrom(all map[int]procEntry, pid, ancestor int) bool {
	for hops := 0; hops < 4096; hops++ {
		p, ok := all[pid]
		if !ok || p.ppid <= 1 {
			return false
		}
		if p.ppid == ancestor {
			return true
		}
		pid = p.ppid
	}
	return false
}

// environHas reports whether the environment of pid holds needle
// ("\x00NAME=value\x00"). The environment block is read with a bound.
func environHas(pid int, needle []byte) bool {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false // gone, or not ours to read
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	env := make([]byte, 0, len(b)+2)
	env = append(append(append(env, 0), b...), 0)
	return bytes.Contains(env, needle)
}
