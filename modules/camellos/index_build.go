package camellos

import (
	"fmt"
	"slices"
	"sync"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// The cold build of the listing (issue 27: ≤ 2 s at 100,000 camellos) is
// a scan of the table by two readers, each on its own connection and half
// of the rowids, while the building goroutine renders what they read; its
// end (the order, the lists) runs its independent parts side by side.

// scanBatch is how many rows a reader reads by query: the rows of 100,000
// camellos at once would double the build's peak.
const scanBatch = 1000

// eachActiveRow calls fn with every ACTIVO camello, in no particular
// order (buildListing sorts): a scan of the table is a third of the time
// of a walk of the listing's index with a lookup of each row (0.20 s
// against 0.51 s for 100,000 camellos in the sqlite3 shell). Inside a
// transaction it reads alone, on the transaction's connection.
func eachActiveRow(app core.App, fn func(*camelloRow) error) error {
	var last int64
	if err := app.DB().NewQuery("SELECT COALESCE(MAX(rowid), 0) FROM " + Collection).Row(&last); err != nil {
		return err
	}
	readers := 2
	if app.IsTransactional() || last < 4*scanBatch {
		readers = 1
	}
	batches := make(chan []camelloRow, 2*readers)
	errs := make(chan error, readers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for k := 0; k < readers; k++ {
		from, to := last*int64(k)/int64(readers), last*int64(k+1)/int64(readers)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- scanActive(app, from, to, batches, stop)
		}()
	}
	go func() { wg.Wait(); close(batches) }()
	var err error
	for rows := range batches {
		for i := 0; i < len(rows) && err == nil; i++ {
			err = fn(&rows[i])
		}
		if err != nil {
			break
		}
	}
	close(stop)
	for range batches { // the readers' last batches, unread
	}
	for k := 0; k < readers; k++ {
		if e := <-errs; err == nil {
			err = e
		}
	}
	return err
}

// scanActive sends the ACTIVO camellos of the rowids (from, to] in batches
// until stop is closed.
func scanActive(app core.App, from, to int64, out chan<- []camelloRow, stop <-chan struct{}) error {
	q := "SELECT rowid, " + rowColumns + " FROM " + Collection + " NOT INDEXED WHERE status = {:status} AND rowid > {:after} AND rowid <= {:to} ORDER BY rowid LIMIT " + fmt.Sprint(scanBatch)
	after := from
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		batch := make([]camelloRow, 0, scanBatch)
		rows, err := app.DB().NewQuery(q).Bind(dbx.Params{"status": StatusActive, "after": after, "to": to}).Rows()
		if err != nil {
			return err
		}
		for rows.Next() {
			var r camelloRow
			if err := rows.Scan(&r.RowID, &r.ID, &r.User, &r.Name, &r.Trades, &r.Status, &r.Premium, &r.Services, &r.Created, &r.Updated,
				&r.City, &r.Neighborhood, &r.Photo, &r.Description, &r.RatingAvg, &r.RatingCount, &r.CityKey, &r.SearchText,
				&r.HasBase, &r.BaseLat, &r.BaseLng, &r.RadiusKm, &r.Verified); err != nil {
				rows.Close()
				return err
			}
			batch = append(batch, r)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(batch) > 0 {
			select {
			case out <- batch:
			case <-stop:
				return nil
			}
		}
		if len(batch) < scanBatch {
			return nil
		}
		after = batch[len(batch)-1].RowID
	}
}

// finish ends a build of l from its entries: every entry listed, in
// order (two halves sorted side by side, then merged), laid out city by
// city (laidOut), the lists made, the spare capacity dropped.
func (l *listing) finish() {
	n := len(l.recs)
	l.order = make([]int32, n)
	for i := range l.order {
		l.order[i] = int32(i)
	}
	if n < 4096 {
		slices.SortFunc(l.order, l.compare)
	} else {
		a, b := l.order[:n/2], l.order[n/2:]
		var wg sync.WaitGroup
		wg.Go(func() { slices.SortFunc(a, l.compare) })
		slices.SortFunc(b, l.compare)
		wg.Wait()
		merged := make([]int32, 0, n)
		for len(a) > 0 && len(b) > 0 {
			if l.compare(b[0], a[0]) < 0 {
				merged, b = append(merged, b[0]), b[1:]
			} else {
				merged, a = append(merged, a[0]), a[1:]
			}
		}
		l.order = append(append(merged, a...), b...)
	}
	if n >= 4096 {
		*l = *l.laidOut()
	}
	l.index()
	l.tighten()
}
