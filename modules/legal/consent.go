package legal

import (
	"net/http"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/timefmt"
	"camellos/internal/writer"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// MsgStaleVersion is the 409 of accepting a version that is no longer current.
const MsgStaleVersion = "La versión indicada ya no es la vigente; vuelve a leer el documento"

type versionRow struct {
	Slug    string `db:"slug"`
	Version int    `db:"version"`
}

// currentVersions returns slug → published version (absent before the first publication).
func currentVersions(app core.App) (map[string]int, error) {
	var rows []versionRow
	err := app.DB().Select("slug", "version").From(Documents).All(&rows)
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.Slug] = r.Version
	}
	return out, err
}

// record stores one acceptance of a slug's version.
func record(app core.App, userID, slug string, version int, ip, userAgent string) (*core.Record, error) {
	col, err := app.FindCachedCollectionByNameOrId(Acceptances)
	if err != nil {
		return nil, err
	}
	rec := core.NewRecord(col)
	rec.Set("user", userID)
	rec.Set("slug", slug)
	rec.Set("version", version)
	rec.Set("ip", cut(ip, 64))
	rec.Set("userAgent", cut(userAgent, 300))
	return rec, app.Save(rec)
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// AcceptCurrent records that the user accepts the current published
// version of every legal document (none published: nothing recorded, no
// error). Registration calls it with its transaction's txApp.
func AcceptCurrent(app core.App, userID, ip, userAgent string) error {
	current, err := currentVersions(app)
	if err != nil {
		return err
	}
	for _, slug := range Slugs {
		if v, ok := current[slug]; ok {
			if _, err := record(app, userID, slug, v, ip, userAgent); err != nil {
				return err
			}
		}
	}
	return nil
}

// ConsentStatus tells, per legal document, the current version (0 before
// the first publication), the newest version the user accepted (0 when
// none) and whether the current version is accepted (true when there is
// nothing to accept):
// {"terminos":{"version":3,"acceptedVersion":2,"accepted":false},"privacidad":{…}}.
func ConsentStatus(app core.App, userID string) (map[string]any, error) {
	current, err := currentVersions(app)
	if err != nil {
		return nil, err
	}
	var rows []versionRow
	err = app.DB().Select("slug", "MAX(version) AS version").From(Acceptances).
		Where(dbx.HashExp{"user": userID}).GroupBy("slug").All(&rows)
	if err != nil {
		return nil, err
	}
	accepted := map[string]int{}
	for _, r := range rows {
		accepted[r.Slug] = r.Version
	}
	out := make(map[string]any, len(Slugs))
	for _, slug := range Slugs {
		out[slug] = map[string]any{
			"version":         current[slug],
			"acceptedVersion": accepted[slug],
			"accepted":        accepted[slug] >= current[slug],
		}
	}
	return out, nil
}

// acceptInput is the optional body of POST /api/legal/{slug}/accept: the
// version the user read; when given it must still be the current one.
type acceptInput struct {
	Version *int `json:"version"`
}

// documentAccept records the signed-in user's acceptance of the current
// version: 201 {acceptance, consent}.
func documentAccept(e *core.RequestEvent) error {
	slug, err := slugParam(e)
	if err != nil {
		return err
	}
	var in acceptInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	user := session.AuthUser(e)
	var acc *core.Record
	err = writer.Transaction(e.App, func(txApp core.App) error {
		doc, err := findDocument(txApp, slug)
		if err != nil {
			return err
		}
		if doc == nil {
			return httpapi.NotFound(MsgNotPublished)
		}
		version := doc.GetInt("version")
		if in.Version != nil && *in.Version != version {
			return httpapi.Conflict(MsgStaleVersion)
		}
		acc, err = record(txApp, user.Id, slug, version, e.RealIP(), e.Request.UserAgent())
		return err
	})
	if err != nil {
		return err
	}
	consent, err := ConsentStatus(e.App, user.Id)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, map[string]any{
		"acceptance": map[string]any{
			"slug":       slug,
			"version":    acc.GetInt("version"),
			"acceptedAt": timefmt.ISO(acc.GetDateTime("created").Time()),
		},
		"consent": consent,
	})
}
