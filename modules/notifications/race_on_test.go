//go:build race

package notifications_test

// raceEnabled: the race detector slows bulk tests tenfold.
const raceEnabled = true
