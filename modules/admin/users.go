package admin

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

// bindUsers binds the admin users routes and the admin camellos list
// (GET /admin/users, PATCH /admin/users/{id}, GET /admin/camellos).
func bindUsers(g *router.RouterGroup[*core.RequestEvent]) {}
