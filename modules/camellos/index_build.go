package camellos

import (
	"slices"
	"sync"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// The cold build of the listing (issue 27: ≤ 2 s at 100,000 camellos) is
// a scan of the table by two readers, each on its own connection and half
// of the rowids, while the building goroutine renders what they read; its
// end (the order, the lists) runs its independent parts side by side.

// scanBatch is how many rows a reader hands on at a time.
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
	var wg sync.WaitGroup
	for k := range readers {
		wg.Go(func() { errs <- scanActive(app, last*int64(k)/int64(readers), last*int64(k+1)/int64(readers), batches) })
	}
	go func() { wg.Wait(); close(batches) }()
	var err error
	for rows := range batches { // after an error, read to the end
		for i := 0; i < len(rows) && err == nil; i++ {
			err = fn(&rows[i])
		}
	}
	for range readers {
		if e := <-errs; err == nil {
			err = e
		}
	}
	return err
}

// scanActive sends the ACTIVO camellos of the rowids (from, to] in batches.
func scanActive(app core.App, from, to int64, out chan<- []camelloRow) error {
	rows, err := app.DB().NewQuery("SELECT " + rowColumns + " FROM " + Collection + " NOT INDEXED WHERE status = {:status} AND rowid > {:from} AND rowid <= {:to}").
		Bind(dbx.Params{"status": StatusActive, "from": from, "to": to}).Rows()
	if err != nil {
		return err
	}
	defer rows.Close()
	batch := make([]camelloRow, 0, scanBatch)
	for rows.Next() {
		var r camelloRow
		if err := rows.Scan(&r.ID, &r.Name, &r.Trades, &r.Status, &r.Premium, &r.Services, &r.Created, &r.Updated,
			&r.City, &r.Neighborhood, &r.Photo, &r.Description, &r.RatingAvg, &r.RatingCount, &r.CityKey, &r.SearchText,
			&r.HasBase, &r.BaseLat, &r.BaseLng, &r.RadiusKm, &r.Verified); err != nil {
			return err
		}
		if batch = append(batch, r); len(batch) == scanBatch {
			out <- batch
			batch = make([]camelloRow, 0, scanBatch)
		}
	}
	if len(batch) > 0 {
		out <- batch
	}
	return rows.Err()
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
