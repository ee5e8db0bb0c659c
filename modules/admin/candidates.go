package admin

import (
	"net/http"
	"sort"
	"time"

	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/text"
	"camellos/internal/timefmt"
	"camellos/modules/agenda"
	"camellos/modules/camellos"
	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// candidatesWindow is how far ahead a candidate's next free slot is looked
// for; one with none in it comes after those with one.
const candidatesWindow = 14 * 24 * time.Hour

// candidate is an ACTIVO camello that could take a job.
type candidate struct {
	rec      *core.Record
	next     time.Time
	hasNext  bool
	rating   float64
	premium  bool
	created  string
	position int
}

// jobCandidates answers GET /api/admin/jobs/{id}/candidates?page=&perPage=:
// every ACTIVO camello that offers the job's service in the job's city
// (accent- and case-insensitive; "Bogotá" also finds "Bogotá D.C."), the
// soonest free first (next free slot within 14 days), then by rating:
// {job: {id, city, serviceId}, camellos: [Camello + nextFree], page,
// perPage, total}.
func jobCandidates(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	page, err := httpapi.Paging(e)
	if err != nil {
		return err
	}
	job, err := e.App.FindRecordById(jobs.Collection, id)
	if err != nil {
		return httpapi.NotFound(jobs.MsgJobNotFound)
	}
	city := text.Fold(job.GetString("city"))
	service := job.GetString("service")
	var ids []string
	err = e.App.DB().Select("id").From(camellos.Collection).
		Where(dbx.HashExp{"status": camellos.StatusActive}).
		AndWhere(dbx.Or(dbx.HashExp{"cityKey": city}, dbx.NewExp("cityKey LIKE {:prefix} ESCAPE '\\'",
			dbx.Params{"prefix": httpapi.LikePattern(city + " ")[1:]}))).
		AndWhere(dbx.NewExp("services LIKE {:svc} ESCAPE '\\'", dbx.Params{"svc": httpapi.LikePattern(`"` + service + `"`)})).
		Column(&ids)
	if err != nil {
		return err
	}
	recs, err := e.App.FindRecordsByIds(camellos.Collection, ids)
	if err != nil {
		return err
	}
	now := clock.Now(e.App)
	list := make([]candidate, 0, len(recs))
	for i, rec := range recs {
		c := candidate{rec: rec, rating: rec.GetFloat("ratingAvg"), premium: rec.GetBool("premium"),
			created: rec.GetString("created"), position: i}
		if c.next, c.hasNext, err = agenda.NextFree(e.App, rec.Id, now, candidatesWindow); err != nil {
			return err
		}
		list = append(list, c)
	}
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.hasNext != b.hasNext {
			return a.hasNext
		}
		if a.hasNext && !a.next.Equal(b.next) {
			return a.next.Before(b.next)
		}
		if a.rating != b.rating {
			return a.rating > b.rating
		}
		if a.premium != b.premium {
			return a.premium
		}
		return a.rec.Id < b.rec.Id
	})
	total := int64(len(list))
	var shown []candidate
	for i := page.Offset(); i < total && len(shown) < page.PerPage; i++ {
		shown = append(shown, list[i])
	}
	pageRecs := make([]*core.Record, len(shown))
	for i, c := range shown {
		pageRecs[i] = c.rec
	}
	items, err := camellos.JSON(e.App, pageRecs, false)
	if err != nil {
		return err
	}
	for i, c := range shown {
		items[i]["nextFree"] = nil
		if c.hasNext {
			items[i]["nextFree"] = timefmt.ISO(c.next)
		}
	}
	body := page.Answer("camellos", items, total)
	body["job"] = map[string]any{"id": job.Id, "city": job.GetString("city"), "serviceId": service}
	return e.JSON(http.StatusOK, body)
}
