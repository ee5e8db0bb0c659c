package admin

import (
	"net/http"
	"sort"
	"time"

	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/timefmt"
	"camellos/modules/agenda"
	"camellos/modules/camellos"
	"camellos/modules/jobs"

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
	job, err := jobs.Find(e.App, id)
	if err != nil {
		return httpapi.NotFound(jobs.MsgJobNotFound)
	}
	service := job.ServiceID()
	cams, err := camellos.ActiveOffering(e.App, job.City(), service)
	if err != nil {
		return err
	}
	now := clock.Now(e.App)
	list := make([]candidate, 0, len(cams))
	for i, cam := range cams {
		c := candidate{rec: cam.ProxyRecord(), rating: cam.Rating().Average, premium: cam.Premium(),
			created: cam.Created().String(), position: i}
		if c.next, c.hasNext, err = agenda.NextFree(e.App, cam.Id, now, candidatesWindow); err != nil {
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
	body["job"] = map[string]any{"id": job.Id, "city": job.City(), "serviceId": service}
	return e.JSON(http.StatusOK, body)
}
