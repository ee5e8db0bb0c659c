package camellos

import "github.com/pocketbase/pocketbase/core"

func bindHooks(app core.App) {}
