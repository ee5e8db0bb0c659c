package camellos

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

// bindPublic binds the public provider routes: GET /camellos,
// GET /camellos/{id}, GET /camellos/{id}/reviews.
func bindPublic(g *router.RouterGroup[*core.RequestEvent]) {}
