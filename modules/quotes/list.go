package quotes

import (
	"encoding/json"
	"time"

	"camellos/internal/readmodel"
	"camellos/modules/camellos"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// quoteItem is one quote of a job's list, rendered once around the two
// parts read live: the camello (camellos.RatedSummaryJSON, dropped by the
// camellos area's own writes) and the status (a PENDIENTE quote past its
// expiry reads VENCIDA at the time of the request, never frozen).
type quoteItem struct {
	camello   string
	status    string // as stored
	expiresAt time.Time
	parts     [][]byte // the JSON before the camello, between it and the status, after
}

// jobQuotes is every quote of one job, newest first (created, then id).
type jobQuotes struct{ items []quoteItem }

// has reports whether camelloID sent one of the quotes (any state).
func (l *jobQuotes) has(camelloID string) bool {
	for i := range l.items {
		if l.items[i].camello == camelloID {
			return true
		}
	}
	return false
}

// quoteLists keeps the quotes of the jobs most recently read (8 MB, not
// the 100,000 jobs of a city), dropped after every committed write of one
// of a job's quotes: record writes (our routes, the dashboard, the generic
// API) and this package's raw UPDATEs (dropList).
var quoteLists = readmodel.Keyed[string, *jobQuotes]{
	Name: "quote-lists", Tables: []string{Collection}, Bound: "8 MB of the jobs' lists most recently read (LRU)",
	MaxCost: 8 << 20, Load: loadQuotes,
	Cost: func(l *jobQuotes) int64 {
		n := int64(64)
		for _, it := range l.items {
			n += int64(len(it.parts[0])+len(it.parts[1])+len(it.parts[2])+len(it.camello)+len(it.status)) + 96
		}
		return n
	},
}

func loadQuotes(app core.App, jobID string) (*jobQuotes, bool, error) {
	var recs []*core.Record
	err := app.RecordQuery(Collection).Where(dbx.HashExp{"job": jobID}).OrderBy("created DESC", "id DESC").All(&recs)
	if err != nil {
		return nil, false, err
	}
	l := &jobQuotes{items: make([]quoteItem, len(recs))}
	for i, r := range recs {
		q := Quote{r}
		l.items[i] = quoteItem{camello: q.CamelloID(), status: r.GetString("status"), expiresAt: q.ExpiresAt()}
		if l.items[i].parts, err = readmodel.Render(quoteFields(q, readmodel.Hole, readmodel.Hole)); err != nil {
			return nil, false, err
		}
	}
	return l, true, nil
}

// appendQuotes appends the quotes of l (only those of camelloID when not
// "") as a JSON array, their status read at now.
func appendQuotes(app core.App, buf []byte, l *jobQuotes, camelloID string, now time.Time) ([]byte, error) {
	buf = append(buf, '[')
	n := 0
	for _, it := range l.items {
		if camelloID != "" && it.camello != camelloID {
			continue
		}
		if n++; n > 1 {
			buf = append(buf, ',')
		}
		buf = append(buf, it.parts[0]...)
		cam, ok, err := camellos.RatedSummaryJSON(app, it.camello)
		if err != nil {
			return nil, err
		}
		if ok {
			buf = append(buf, cam...)
		} else {
			id, _ := json.Marshal(it.camello)
			buf = append(append(append(buf, `{"id":`...), id...), `,"name":"","photo":"","ratingAvg":0,"trades":[]}`...)
		}
		status := it.status
		if status == StatusPending && !it.expiresAt.After(now) {
			status = StatusExpired
		}
		buf = append(append(append(append(buf, it.parts[1]...), '"'), status...), '"')
		buf = append(buf, it.parts[2]...)
	}
	return append(buf, ']'), nil
}

// dropList forgets the cached quotes of a job once app's write commits.
func dropList(app core.App, jobID string) { quoteLists.Drop(app, jobID) }

func bindListCache(app core.App) {
	quoteLists.Declare(app)
	readmodel.OnWrite(app, Collection, func(w readmodel.Write) { dropList(w.App, w.Record.GetString("job")) })
}

// CachedLists is how many jobs' quote lists are in memory and their
// approximate bytes (bench, metrics).
func CachedLists(app core.App) (int, int64) { return quoteLists.Of(app).Len() }
