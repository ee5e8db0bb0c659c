package hardening_test

import (
	"os"
	"testing"

	"camellos/internal/testkit"
)

// TestMain removes the binary built for this package alone (when it is not
// the go test run's shared one: testkit.Binary).
func TestMain(m *testing.M) {
	code := m.Run()
	testkit.RemoveBinary()
	os.Exit(code)
}

// binary is the service's binary, built once per go test run (linking it
// costs seconds of CPU; every crash test runs the same build).
func binary(t *testing.T) string {
	t.Helper()
	return testkit.Binary(t)
}
