//go:build !unix

package dbwatch

type shmHeader [24]uint32

type shmView struct{}

func (s *shmView) close() {}

func (w *Watcher) quiet() bool { return false }

func (w *Watcher) headerLocked() *shmHeader { return nil }
