package notifications

import "syscall"

// encryptorNice is how much lower than the process's the encryption
// threads' priority is (nice steps; the kernel caps the result at 19).
const encryptorNice = 10

// lowerThreadPriority lowers the calling OS thread's priority; the caller
// holds runtime.LockOSThread for good. On Linux a thread's nice value is
// its own (setpriority on the thread id). Best effort: an error leaves
// the priority as it was.
func lowerThreadPriority() {
	tid := syscall.Gettid()
	cur, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
	if err != nil {
		return
	}
	nice := 20 - cur // the raw syscall answers 20 − nice
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, min(nice+encryptorNice, 19))
}
