//go:build unix

package dbwatch

import (
	"os"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// The fast path of Check. In WAL mode every commit, by any connection of
// any process, rewrites the wal-index header at the start of data.db-shm
// (SQLite increments its iChange counter and moves mxFrame; the file is
// shared memory that SQLite itself maps). While those bytes are the same as
// when a probe last found nothing foreign, nobody has committed since, and
// Check can return without the probe's SQL: a few loads from memory
// instead of a read transaction. Any change (an own commit, a foreign one,
// a checkpoint restarting the WAL) sends Check down the slow path, which
// decides as before. Without a -shm file (another journal mode) there is no
// fast path.

// hdrWords is both copies of the wal-index header (2 × 48 bytes).
const hdrWords = 24

type shmHeader [hdrWords]uint32

// shmView is data.db-shm's first page, mapped read-only and shared.
//
// Its descriptor stays open as long as the mapping: SQLite's locks on the
// file are POSIX locks, which a process loses when it closes any
// descriptor of the file, its own or not. Closing this one right after
// mmap dropped the service's "dead man switch" lock, and the next process
// to open the database (the CLI, the push worker, Litestream) took itself
// for the first user and truncated the file under the service's mapping
// (SIGBUS on its next commit). It is closed when the watcher lets go of
// the database (closeProbeLocked: Open of another dsn, Close).
type shmView struct {
	mem []byte
	f   *os.File
}

// openShm maps dbPath-shm, or returns nil when there is none worth mapping.
func openShm(dsn string) *shmView {
	path, _, _ := strings.Cut(dsn, "?")
	path = strings.TrimPrefix(path, "file:")
	// Stat first: a file not worth mapping is never opened (see shmView
	// for why a descriptor, once opened, stays open).
	pageSize := os.Getpagesize()
	if st, err := os.Stat(path + "-shm"); err != nil || st.Size() < int64(pageSize) {
		return nil
	}
	f, err := os.Open(path + "-shm")
	if err != nil {
		return nil
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, pageSize, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		// Kept (unmapped: read reports no header) rather than closed.
		return &shmView{f: f}
	}
	return &shmView{mem: mem, f: f}
}

// read copies the header: the first copy, then the second (SQLite writes
// the second first, so a header caught half-written never reads as
// unchanged). ok is false when the mapping faults (the file was truncated
// under us): the caller then takes the slow path.
func (s *shmView) read(h *shmHeader) (ok bool) {
	if s.mem == nil {
		return false
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	base := unsafe.Pointer(&s.mem[0])
	for i := 0; i < hdrWords; i++ {
		h[i] = atomic.LoadUint32((*uint32)(unsafe.Add(base, 4*i)))
	}
	return true
}

func (s *shmView) close() {
	if s != nil {
		if s.mem != nil {
			_ = syscall.Munmap(s.mem)
		}
		_ = s.f.Close()
	}
}

// quiet reports whether the header still holds the snapshot taken before
// the last probe that found every commit accounted.
func (w *Watcher) quiet() bool {
	snap := w.snap.Load()
	s := w.shm.Load()
	if snap == nil || s == nil {
		return false
	}
	var h shmHeader
	return s.read(&h) && h == *snap
}

// headerLocked reads the header before a probe (nil: no fast path).
func (w *Watcher) headerLocked() *shmHeader {
	s := w.shm.Load()
	if s == nil {
		if w.dsn == "" || w.probe == nil {
			return nil
		}
		s = openShm(w.dsn)
		if s == nil {
			return nil
		}
		w.shm.Store(s)
	}
	h := new(shmHeader)
	if !s.read(h) {
		return nil
	}
	return h
}
