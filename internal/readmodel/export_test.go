package readmodel

import "github.com/pocketbase/pocketbase/core"

// DropNamed forgets one projection of app (benchmarks: the route answered
// by its plain query, the projection cold before every request).
func DropNamed(app core.App, name string) bool {
	for _, e := range registryOf(app).list() {
		if e.p.Name == name {
			e.p.Drop()
			return true
		}
	}
	return false
}

// ForeignDrops is how many times each projection was dropped for another
// process's commit.
func ForeignDrops(app core.App) map[string]int64 {
	out := map[string]int64{}
	for _, s := range Stats(app) {
		out[s.Name] = s.ForeignDrops
	}
	return out
}

// UnknownCommits is how many foreign commits dropped every projection
// because the tables they changed were unknown.
func UnknownCommits(app core.App) int64 { return registryOf(app).unknown.Load() }

// Differences is how many differences each projection's check found.
func Differences(app core.App) map[string]int64 {
	out := map[string]int64{}
	for _, s := range Stats(app) {
		out[s.Name] = s.Differences
	}
	return out
}
