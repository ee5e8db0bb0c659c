package notifications

import "github.com/pocketbase/pocketbase/core"

// Register binds the notifications area's record hooks and routes.
func Register(app core.App) {
	_ = app
}
