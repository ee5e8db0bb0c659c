package camellos

import (
	"fmt"
	"slices"
	"time"

	"camellos/internal/timefmt"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// ReviewedFields are the fields of an approved (ACTIVO) camello whose edits
// go live at once but are recorded for an admin to review: what the public
// sees of the person (name, photo, description) and the document an admin
// checked at approval.
var ReviewedFields = []string{"name", "photo", "documentId", "description"}

// recordReview marks rec for review when it is and stays ACTIVO and one of
// the ReviewedFields changed against stored: reviewPending, the union of
// the edited fields in reviewFields and, for the first pending edit,
// reviewSince. Called before the update is saved.
func recordReview(rec, stored *core.Record) {
	if stored.GetString("status") != StatusActive || rec.GetString("status") != StatusActive {
		return
	}
	fields := reviewFieldsOf(rec)
	changed := false
	for _, f := range ReviewedFields {
		// fmt.Sprint: a new photo is a *filesystem.File until saved.
		if fmt.Sprint(rec.Get(f)) != fmt.Sprint(stored.Get(f)) {
			changed = true
			if !slices.Contains(fields, f) {
				fields = append(fields, f)
			}
		}
	}
	if !changed {
		return
	}
	if !rec.GetBool("reviewPending") {
		rec.Set("reviewSince", types.NowDateTime())
	}
	rec.Set("reviewPending", true)
	rec.Set("reviewFields", fields)
}

// MarkReviewed clears the review record of rec (an admin decided on the
// camello); the caller saves it.
func MarkReviewed(rec *core.Record) {
	rec.Set("reviewPending", false)
	rec.Set("reviewFields", []string{})
	rec.Set("reviewSince", "")
}

func reviewFieldsOf(rec *core.Record) []string {
	var fields []string
	if err := rec.UnmarshalJSONField("reviewFields", &fields); err != nil || fields == nil {
		return []string{}
	}
	return fields
}

// reviewJSON is the "review" object of the private Camello answer:
// {pending, fields, since|null}.
func reviewJSON(rec *core.Record) map[string]any {
	var since any
	if t := rec.GetDateTime("reviewSince"); !t.IsZero() {
		since = timefmt.ISO(t.Time().UTC().Truncate(time.Millisecond))
	}
	return map[string]any{"pending": rec.GetBool("reviewPending"), "fields": reviewFieldsOf(rec), "since": since}
}
