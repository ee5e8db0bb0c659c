package admin

import (
	"net/http"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/timefmt"
	"camellos/internal/writer"
	"camellos/modules/auth"
	"camellos/modules/camellos"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

// Spanish messages of the admin users area.
const (
	MsgUserNotFound  = "Usuario no encontrado"
	MsgOwnAdminRole  = "No puedes quitarte tu propio rol de administrador"
	MsgDisableSelf   = "No puedes desactivar tu propia cuenta"
	msgRoleValues    = "Debe ser ADMIN, CAMELLOS o CLIENTE"
	msgCamelloStatus = "Debe ser PENDIENTE, ACTIVO, RECHAZADO o SUSPENDIDO"
)

// bindUsers binds the admin users routes and the admin camellos list
// (GET /admin/users, PATCH /admin/users/{id}, GET /admin/camellos).
func bindUsers(g *router.RouterGroup[*core.RequestEvent]) {
	// GET /api/admin/users?role=&q=&page=&perPage=: paginated users.
	g.GET("/users", usersList)
	// PATCH /api/admin/users/{id}: change role, name or disabled.
	g.PATCH("/users/{id}", userUpdate)
	// GET /api/admin/camellos?status=&q=&page=&perPage=: paginated camellos, all fields.
	g.GET("/camellos", camellosList)
}

func validRole(r string) bool {
	return r == users.RoleAdmin || r == users.RoleCamello || r == users.RoleClient
}

// userJSON is the admin view of a user: the User object plus disabled and
// updatedAt (never a password or token).
func userJSON(u *core.Record) map[string]any {
	m := auth.UserJSON(u)
	m["disabled"] = u.GetBool("disabled")
	m["updatedAt"] = timefmt.ISO(u.GetDateTime("updated").Time())
	return m
}

// usersList answers {users, page, perPage, total}, newest first; role
// filters exactly, q finds a part of the name or e-mail (case-insensitive).
func usersList(e *core.RequestEvent) error {
	page, err := httpapi.Paging(e)
	if err != nil {
		return err
	}
	q := e.Request.URL.Query()
	where := []dbx.Expression{}
	if role := q.Get("role"); role != "" {
		if !validRole(role) {
			return httpapi.FieldError("role", msgRoleValues)
		}
		where = append(where, dbx.HashExp{"role": role})
	}
	if s := strings.TrimSpace(q.Get("q")); s != "" {
		where = append(where, dbx.NewExp(`(name LIKE {:q} ESCAPE '\' OR email LIKE {:q} ESCAPE '\')`,
			dbx.Params{"q": httpapi.LikePattern(s)}))
	}
	recs, total, err := newestPage(e.App, users.Collection, where, page)
	if err != nil {
		return err
	}
	users := make([]map[string]any, 0, len(recs))
	for _, u := range recs {
		users = append(users, userJSON(u))
	}
	return e.JSON(http.StatusOK, page.Answer("users", users, total))
}

// userPatch is the body of PATCH /api/admin/users/{id}.
type userPatch struct {
	Role     *string `json:"role"`
	Name     *string `json:"name"`
	Disabled *bool   `json:"disabled"`
}

// userUpdate changes a user's role, name or disabled flag: 200 {user}.
// Disabling revokes every session of the user. An admin can neither drop
// their own ADMIN role nor disable themselves (409), so an admin always remains.
func userUpdate(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	var in userPatch
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	v := httpapi.NewValidation()
	if in.Role != nil && !validRole(*in.Role) {
		v.Add("role", msgRoleValues)
	}
	if in.Name != nil {
		*in.Name = strings.TrimSpace(*in.Name)
		httpapi.CheckName(v, "name", *in.Name, bounds.NameMin, bounds.NameMax)
	}
	if err := v.Err(); err != nil {
		return err
	}
	user, err := e.App.FindRecordById(users.Collection, id)
	if err != nil {
		return httpapi.NotFound(MsgUserNotFound)
	}
	if user.Id == session.AuthUser(e).Id {
		if in.Role != nil && *in.Role != users.RoleAdmin {
			return httpapi.Conflict(MsgOwnAdminRole)
		}
		if in.Disabled != nil && *in.Disabled {
			return httpapi.Conflict(MsgDisableSelf)
		}
	}
	// The users' record hooks revoke the sessions of a user being
	// disabled, in the same transaction as the save.
	err = writer.Transaction(e.App, func(tx core.App) error {
		return users.Update(tx, users.Wrap(user), users.Change{Role: in.Role, Name: in.Name, Disabled: in.Disabled})
	})
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, map[string]any{"user": userJSON(user)})
}

// camellosList answers {camellos, page, perPage, total} with every field,
// newest first; status filters exactly, q is matched accent- and
// case-insensitively against the camello's folded search text.
func camellosList(e *core.RequestEvent) error {
	page, err := httpapi.Paging(e)
	if err != nil {
		return err
	}
	q := e.Request.URL.Query()
	where := []dbx.Expression{}
	if status := q.Get("status"); status != "" {
		if !camellos.ValidStatus(status) {
			return httpapi.FieldError("status", msgCamelloStatus)
		}
		where = append(where, dbx.HashExp{"status": status})
	}
	if m := camellos.MatchText(q.Get("q")); m != nil {
		where = append(where, m)
	}
	recs, total, err := newestPage(e.App, camellos.Collection, where, page)
	if err != nil {
		return err
	}
	list, err := camellos.JSON(e.App, recs, camellos.PrivateFor(session.AuthUser(e), nil))
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, page.Answer("camellos", list, total))
}

// newestPage returns the page of a collection's records matching every
// condition (none: all), newest first, and how many match.
func newestPage(app core.App, collection string, where []dbx.Expression, page httpapi.Page) ([]*core.Record, int64, error) {
	var cond dbx.Expression = dbx.NewExp("1=1")
	if len(where) > 0 {
		cond = dbx.And(where...)
	}
	var total int64
	if err := app.RecordQuery(collection).Select("COUNT(*)").AndWhere(cond).Row(&total); err != nil {
		return nil, 0, err
	}
	var recs []*core.Record
	err := app.RecordQuery(collection).AndWhere(cond).
		OrderBy("created DESC", "id DESC").Limit(int64(page.PerPage)).Offset(page.Offset()).All(&recs)
	return recs, total, err
}
