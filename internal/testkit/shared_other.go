//go:build !linux

package testkit

// sharedTemplate builds the template once per test binary where the go
// command's process cannot be named (shared_linux.go shares it per run).
func sharedTemplate(build func() (map[string][]byte, error)) (map[string][]byte, error) {
	return build()
}

// runDir shares nothing here: the caller does the work itself.
func runDir(name string, fill func(dir string) error) (string, error) {
	return "", nil
}
