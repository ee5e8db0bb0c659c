package admin

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

func bindCamellos(g *router.RouterGroup[*core.RequestEvent]) {}
