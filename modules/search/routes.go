// Package search interprets natural-language searches.
package search

import "github.com/pocketbase/pocketbase/core"

// Register binds the search area's record hooks and routes.
func Register(app core.App) {
	_ = app
}
