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
