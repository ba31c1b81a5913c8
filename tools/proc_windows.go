package tools

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// procTree is the Windows handle on a tool's process tree: a Job Object
// with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE. Every process the tool starts
// joins the job (Windows has no setsid-style way out of it unless the job
// allows breakaway, which this one does not), TerminateJobObject kills
// them all at once, and closing the last handle — also when ahpls itself
// dies — kills whatever is left. We chose the Job Object over
// `taskkill /T` because taskkill walks parent pids, which misses children
// whose parent already exited.
//
// The leader is created suspended and resumed only after it joined the
// job, so not even its first instructions run outside it.
//
// Windows has no SIGTERM: cancellation and timeouts terminate the job at
// once, without the Unix grace period.
type procTree struct {
	mu  sync.Mutex
	job windows.Handle // 0 once released
}

func startTree(cmd *exec.Cmd) (*procTree, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("creating a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("configuring the job object: %w", err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP,
		HideWindow:    true,
	}
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	pid := uint32(cmd.Process.Pid)
	if err := joinAndResume(job, pid); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		windows.CloseHandle(job)
		return nil, err
	}
	return &procTree{job: job}, nil
}

// joinAndResume puts the suspended process pid into job and resumes its
// threads (os/exec does not hand out the primary thread handle, so the
// threads are found through a toolhelp snapshot).
func joinAndResume(job windows.Handle, pid uint32) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return fmt.Errorf("opening the new process: %w", err)
	}
	err = windows.AssignProcessToJobObject(job, h)
	windows.CloseHandle(h)
	if err != nil {
		return fmt.Errorf("adding the process to its job object: %w", err)
	}
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("listing threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	resumed := 0
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			continue
		}
		if _, err := windows.ResumeThread(th); err == nil {
			resumed++
		}
		windows.CloseHandle(th)
	}
	if resumed == 0 {
		return fmt.Errorf("could not resume process %d", pid)
	}
	return nil
}

func (t *procTree) terminate() { t.kill() }

func (t *procTree) kill() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		_ = windows.TerminateJobObject(t.job, 1)
	}
}

// release kills what is left of the job and closes it.
func (t *procTree) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		_ = windows.TerminateJobObject(t.job, 1)
		windows.CloseHandle(t.job)
		t.job = 0
	}
}

func killedBySignal(*exec.ExitError) (os.Signal, bool) { return nil, false }
