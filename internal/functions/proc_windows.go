//go:build windows

// This file runs each function in a Windows job object that kills its
// processes when crd-lsp's handle to it closes: the Windows counterpart of
// proc_unix.go's watchdog.

package functions

import (
	"os/exec"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// group is the job object a function runs in, created with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: when its only handle closes
// (release, or crd-lsp exiting or dying however it dies: Windows closes a
// dead process's handles) every process in the job is terminated — the
// function and whatever it started, since children join their parent's
// job. The handle is not inheritable, so no child holds the job open. A
// nil group (no job could be made) leaves only the process itself to stop.
//
// A process joins its job just after it starts (AssignProcessToJobObject
// needs its handle): what it starts in that instant is not in the job.
type group struct {
	job  windows.Handle
	once sync.Once
}

func newGroup() (*group, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	return &group{job: job}, nil
}

// join: a Windows process joins its job once started (started).
func (g *group) join(*exec.Cmd) {}

// started puts the started process in the job.
func (g *group) started(cmd *exec.Cmd) {
	if g == nil || cmd.Process == nil {
		return
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err != nil {
		return
	}
	defer windows.CloseHandle(h)
	_ = windows.AssignProcessToJobObject(g.job, h)
}

// kill terminates the job, cmd's process with it.
func (g *group) kill(cmd *exec.Cmd) {
	if g != nil {
		_ = windows.TerminateJobObject(g.job, 1)
	}
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// release closes crd-lsp's handle: what is left in the job is terminated.
func (g *group) release() {
	if g != nil {
		g.once.Do(func() { windows.CloseHandle(g.job) })
	}
}
