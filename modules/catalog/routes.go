// Package catalog is the catalog area: categories and services, public and admin.
package catalog

import (
	"camellos/internal/httpapi"
	"camellos/internal/session"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
)

// Collections of the catalog.
const (
	Categories = "categories"
	Services   = "services"
)

// Register binds the catalog area's record hooks and routes.
func Register(app core.App) {
	bindHooks(app)
	bindCacheHooks(app)
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		g := httpapi.API(se)
		// GET /api/categories: every category, by sortOrder then name, with _count.services.
		g.GET("/categories", categoriesList).Bind(apis.SkipSuccessActivityLog())
		// GET /api/services?category=: every service, optionally of one category.
		g.GET("/services", servicesList).Bind(apis.SkipSuccessActivityLog())

		admin := g.Group("/admin")
		admin.Bind(session.RequireAdmin(httpapi.MsgUnauthenticated))
		// GET /api/admin/categories: paginated categories (q on the name).
		admin.GET("/categories", categoriesAdminList)
		// POST /api/admin/categories: create a category (endpoint 3).
		admin.POST("/categories", categoryCreate)
		// PATCH /api/admin/categories/{id}: change a category.
		admin.PATCH("/categories/{id}", categoryUpdate)
		// DELETE /api/admin/categories/{id}: delete a category without services.
		admin.DELETE("/categories/{id}", categoryDelete)
		// GET /api/admin/services: paginated services (category, q).
		admin.GET("/services", servicesAdminList)
		// POST /api/admin/services: create a service.
		admin.POST("/services", serviceCreate)
		// PATCH /api/admin/services/{id}: change a service.
		admin.PATCH("/services/{id}", serviceUpdate)
		// DELETE /api/admin/services/{id}: delete a service no job uses.
		admin.DELETE("/services/{id}", serviceDelete)
		return se.Next()
	})
}
