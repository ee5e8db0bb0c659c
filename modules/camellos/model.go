// Package camellos is the providers area: the camello profile's invariants
// (status transitions, derived search columns), its JSON shapes, the
// public listing and reviews.
package camellos

import (
	"encoding/json"

	"camellos/internal/httpapi"
	"camellos/internal/privacy"
	"camellos/internal/timefmt"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Collection and statuses of camellos.
const (
	Collection = "camellos"

	StatusPending   = "PENDIENTE"
	StatusActive    = "ACTIVO"
	StatusRejected  = "RECHAZADO"
	StatusSuspended = "SUSPENDIDO"
)

// PhotoPath is the public path of the camello's photo ("" without photo).
func PhotoPath(rec *core.Record) string {
	if f := rec.GetString("photo"); f != "" {
		return "/uploads/camellos/" + f
	}
	return ""
}

// Trades returns the camello's trades as a list (never nil).
func Trades(rec *core.Record) []string {
	out := []string{}
	switch v := rec.Get("trades").(type) {
	case []string:
		out = append(out, v...)
	default:
		raw, _ := json.Marshal(v)
		_ = json.Unmarshal(raw, &out)
		if out == nil {
			out = []string{}
		}
	}
	return out
}

// ServiceSummary is the {id, name, slug} of a service.
type ServiceSummary struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Slug string `json:"slug"`
}

// Summary is the job's provider object: {id, name, photo, trades}.
func Summary(rec *core.Record) map[string]any {
	return map[string]any{
		"id":     rec.Id,
		"name":   rec.GetString("name"),
		"photo":  PhotoPath(rec),
		"trades": Trades(rec),
	}
}

// serviceSummaries loads the services of many camellos in one query.
func serviceSummaries(app core.App, recs []*core.Record) (map[string]ServiceSummary, error) {
	ids := []any{}
	seen := map[string]bool{}
	for _, r := range recs {
		for _, id := range r.GetStringSlice("services") {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	out := make(map[string]ServiceSummary, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []ServiceSummary
	err := app.DB().Select("id", "name", "slug").From("services").Where(dbx.In("id", ids...)).All(&rows)
	for _, s := range rows {
		out[s.ID] = s
	}
	return out, err
}

// PrivateFor reports whether reader (nil: anonymous) may read the private
// fields of the camello rec (nil: of any camello) that JSON adds with
// private: the rules privacy.Phone, privacy.DocumentID and privacy.BasePoint (the camello
// itself and admins).
func PrivateFor(reader, rec *core.Record) bool {
	if reader == nil {
		return false
	}
	r := privacy.Relation{Admin: users.Wrap(reader).Role() == users.RoleAdmin,
		Self: rec != nil && rec.GetString("user") == reader.Id}
	return privacy.Visible(privacy.Phone, r) && privacy.Visible(privacy.DocumentID, r) && privacy.Visible(privacy.BasePoint, r)
}

// JSON renders camellos as the interface's Camello object. With private
// false the fields only admins and the camello itself may see (documentId,
// phone, professionalCard, notes, the document photos) are left out.
func JSON(app core.App, recs []*core.Record, private bool) ([]map[string]any, error) {
	services, err := serviceSummaries(app, recs)
	if err != nil {
		return nil, err
	}
	verified, err := verifiedOf(app, recs)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(recs))
	for _, r := range recs {
		svc := []ServiceSummary{}
		for _, id := range r.GetStringSlice("services") {
			if s, ok := services[id]; ok {
				svc = append(svc, s)
			}
		}
		m := map[string]any{
			"id":           r.Id,
			"name":         r.GetString("name"),
			"trades":       Trades(r),
			"status":       r.GetString("status"),
			"premium":      r.GetBool("premium"),
			"services":     svc,
			"createdAt":    timefmt.ISO(r.GetDateTime("created").Time()),
			"updatedAt":    timefmt.ISO(r.GetDateTime("updated").Time()),
			"city":         r.GetString("city"),
			"neighborhood": r.GetString("neighborhood"),
			"photo":        PhotoPath(r),
			"description":  r.GetString("description"),
			"verified":     verified[r.GetString("user")],
			"rating": map[string]any{
				"average": r.GetFloat("ratingAvg"),
				"count":   r.GetInt("ratingCount"),
			},
		}
		if private {
			m["userId"] = r.GetString("user")
			m["documentId"] = r.GetString("documentId")
			m["phone"] = r.GetString("phone")
			m["professionalCard"] = r.GetString("professionalCard")
			m["notes"] = r.GetString("notes")
			m["rejectionReason"] = r.GetString("rejectionReason")
			m["timezone"] = r.GetString("timezone")
			m["review"] = reviewJSON(r)
			m["area"] = nil
			if a, ok := Wrap(r).WorkArea(); ok {
				m["area"] = map[string]any{"lat": a.Point.Lat, "lng": a.Point.Lng, "placeId": a.PlaceID, "radiusKm": a.RadiusKm}
			}
			m["documents"] = DocumentPaths(r)
		}
		out = append(out, m)
	}
	return out, nil
}

// One renders a single camello (see JSON).
func One(app core.App, rec *core.Record, private bool) (map[string]any, error) {
	list, err := JSON(app, []*core.Record{rec}, private)
	if err != nil {
		return nil, err
	}
	return list[0], nil
}

// Respond answers {camello} for one record with status (see JSON for
// private).
func Respond(e *core.RequestEvent, status int, rec *core.Record, private bool) error {
	body, err := One(e.App, rec, private)
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(status, map[string]any{"camello": body})
}

// Rating is a camello's review average (two decimals) and review count.
type Rating struct {
	Average float64 `db:"average"`
	Count   int     `db:"count"`
}
