//go:build !linux

package notifications

// lowerThreadPriority does nothing where a thread's priority cannot be
// set apart from its process's.
func lowerThreadPriority() {}
