package quotes

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"camellos/internal/memo"
	"camellos/internal/readmodel"
	"camellos/internal/timefmt"
	"camellos/modules/camellos"
	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// maxCachedQuoteBytes bounds the per-job quote lists kept in memory (the
// jobs most recently read, not the 100,000 of a city).
const maxCachedQuoteBytes = 8 << 20

// quoteItem is one quote of a job's list, rendered once around the two
// parts read live: the camello (camellos.RatedSummaryJSON, dropped by the
// camellos area's own writes) and the status (a PENDIENTE quote past its
// expiry reads VENCIDA at the time of the request, never frozen).
type quoteItem struct {
	camello   string
	status    string // as stored
	expiresAt time.Time
	head      []byte // {"amount":…,"camello":
	tail      []byte // ,"createdAt":…,"message":…,"status":
}

// jobQuotes is every quote of one job, newest first (created, then id).
type jobQuotes struct {
	items []quoteItem
	cost  int64
}

// has reports whether camelloID sent one of the quotes (any state).
func (l *jobQuotes) has(camelloID string) bool {
	for i := range l.items {
		if l.items[i].camello == camelloID {
			return true
		}
	}
	return false
}

type listCache struct {
	byJob *memo.Keyed[string, *jobQuotes]
}

const listCacheKey = "camellos.quotes.lists"

func listCacheOf(app core.App) *listCache {
	return app.Store().GetOrSet(listCacheKey, func() any {
		return &listCache{byJob: memo.NewKeyed[string, *jobQuotes](maxCachedQuoteBytes, func(l *jobQuotes) int64 { return l.cost })}
	}).(*listCache)
}

// jobQuotesOf returns the quotes of a job from memory (app must not be a
// transaction): built from the database by the first reader after a drop.
func jobQuotesOf(app core.App, jobID string) (*jobQuotes, error) {
	l, _, err := listCacheOf(app).byJob.Get(jobID, func() (*jobQuotes, bool, error) { return loadQuotes(app, jobID) })
	return l, err
}

func loadQuotes(app core.App, jobID string) (*jobQuotes, bool, error) {
	var recs []*core.Record
	err := app.RecordQuery(Collection).Where(dbx.HashExp{"job": jobID}).
		OrderBy("created DESC", "id DESC").All(&recs)
	if err != nil {
		return nil, false, err
	}
	l, err := renderQuotes(recs)
	return l, err == nil, err
}

// sameQuotes reports whether two lists render the same.
func sameQuotes(a, b *jobQuotes) bool {
	if len(a.items) != len(b.items) {
		return false
	}
	for i := range a.items {
		x, y := &a.items[i], &b.items[i]
		if x.camello != y.camello || x.status != y.status || !x.expiresAt.Equal(y.expiresAt) ||
			!bytes.Equal(x.head, y.head) || !bytes.Equal(x.tail, y.tail) {
			return false
		}
	}
	return true
}

// renderQuotes renders each quote as JSON would (the keys of its map in
// encoding/json's sorted order), but for its camello and status.
func renderQuotes(recs []*core.Record) (*jobQuotes, error) {
	l := &jobQuotes{items: make([]quoteItem, 0, len(recs)), cost: 64}
	str := func(buf []byte, s string) ([]byte, error) {
		raw, err := json.Marshal(s)
		return append(buf, raw...), err
	}
	for _, r := range recs {
		q := Quote{r}
		head := append([]byte(`{"amount":`), strconv.Itoa(q.Amount())...)
		head = append(head, `,"camello":`...)
		tail := []byte(`,"createdAt":`)
		var err error
		for _, part := range []struct{ key, val string }{
			{"", timefmt.ISO(r.GetDateTime("created").Time())},
			{`,"currency":`, jobs.Currency},
			{`,"expiresAt":`, timefmt.ISO(q.ExpiresAt())},
			{`,"id":`, r.Id},
			{`,"jobId":`, q.JobID()},
			{`,"message":`, r.GetString("message")},
		} {
			tail = append(tail, part.key...)
			if tail, err = str(tail, part.val); err != nil {
				return nil, err
			}
		}
		tail = append(tail, `,"status":`...)
		it := quoteItem{camello: q.CamelloID(), status: r.GetString("status"), expiresAt: q.ExpiresAt(),
			head: slices.Clone(head), tail: slices.Clone(tail)}
		l.items = append(l.items, it)
		l.cost += int64(len(it.head)+len(it.tail)+len(it.camello)+len(it.status)) + 96
	}
	l.items = slices.Clip(l.items)
	return l, nil
}

// appendQuotes appends the quotes of l (only those of camelloID when not
// "") as a JSON array, their status read at now.
func appendQuotes(app core.App, buf []byte, l *jobQuotes, camelloID string, now time.Time) ([]byte, error) {
	buf = append(buf, '[')
	n := 0
	for i := range l.items {
		it := &l.items[i]
		if camelloID != "" && it.camello != camelloID {
			continue
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		n++
		buf = append(buf, it.head...)
		cam, ok, err := camellos.RatedSummaryJSON(app, it.camello)
		if err != nil {
			return nil, err
		}
		if ok {
			buf = append(buf, cam...)
		} else {
			id, _ := json.Marshal(it.camello)
			buf = append(buf, `{"id":`...)
			buf = append(buf, id...)
			buf = append(buf, `,"name":"","photo":"","ratingAvg":0,"trades":[]}`...)
		}
		buf = append(buf, it.tail...)
		status := it.status
		if status == StatusPending && !it.expiresAt.After(now) {
			status = StatusExpired
		}
		buf = append(buf, '"')
		buf = append(buf, status...)
		buf = append(buf, `"}`...)
	}
	return append(buf, ']'), nil
}

// dropList forgets the cached quotes of a job once app's write commits.
func dropList(app core.App, jobID string) {
	c := listCacheOf(app)
	readmodel.AfterCommit(app, func() { c.byJob.Drop(jobID) })
}

// bindListCache drops a job's cached quotes after every committed record
// write of one of its quotes (our routes, the dashboard, the generic API),
// and every list on a commit by another process. The raw UPDATEs of this
// package drop theirs themselves (dropList).
func bindListCache(app core.App) {
	c := listCacheOf(app)
	readmodel.Declare(app, readmodel.Projection{
		Name: "quote-lists", Tables: []string{Collection},
		Bound: "8 MB of the jobs' lists most recently read (LRU)",
		Drop:  c.byJob.DropAll,
		Check: readmodel.KeyedCheck(c.byJob, loadQuotes, sameQuotes),
	})
	readmodel.OnWrite(app, Collection, func(w readmodel.Write) { c.byJob.Drop(w.Record.GetString("job")) })
}

// CachedLists is how many jobs' quote lists are in memory and their
// approximate bytes (bench, metrics).
func CachedLists(app core.App) (int, int64) {
	return listCacheOf(app).byJob.Len()
}
