// Package stmtcache keeps prepared statements per database connection
// (internal/dbwatch's wrapper of data.db's connections uses it).
//
// database/sql and dbx hand every query to the driver as text, and the
// SQLite driver prepares it again each time: in the write-only benchmark
// statement preparation was ~27 % of the service's CPU, much of it inside
// write transactions (which hold SQLite's single writer). Each of the
// app's data.db connections therefore keeps up to 128 statements prepared
// (the driver resets a kept statement after use instead of finalizing it;
// past 128 an idle one is finalized, whichever the map yields first) and
// runs a query it has seen before without parsing it again.
//
// A statement is used by one query at a time: while the rows of a kept
// statement are open (a transaction may run another query before closing
// them), the same text runs uncached. SQLite re-prepares a kept statement
// by itself after a schema change. Access is serialised by database/sql,
// which never uses one connection from two goroutines at once.
package stmtcache

import (
	"context"
	"database/sql/driver"
)

const (
	// size is how many statements a connection keeps prepared.
	size = 128
	// maxQuery is the longest query text kept prepared (longer ones are
	// built with varying lists of values and rarely repeat).
	maxQuery = 4096
)

type stmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

type kept struct {
	s    stmt
	busy bool // rows of this statement are open
}

// Cache is the statements kept prepared on one connection (New); the
// connection's wrapper runs its queries through Query and Exec and calls
// Close before the connection closes.
type Cache struct{ m map[string]*kept }

// New returns an empty cache for one connection.
func New() *Cache { return &Cache{m: map[string]*kept{}} }

// get returns the idle kept statement of query, preparing it on c when
// needed, or nil when it cannot be used now (too long, busy, or the driver
// cannot prepare it: the caller then runs the query uncached, which
// reports any error).
func (sc *Cache) get(ctx context.Context, c driver.Conn, query string) *kept {
	if k := sc.m[query]; k != nil || len(query) > maxQuery {
		if k != nil && !k.busy {
			return k
		}
		return nil
	}
	p, ok := c.(driver.ConnPrepareContext)
	if !ok {
		return nil
	}
	s, err := p.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	st, ok := s.(stmt)
	if !ok {
		_ = s.Close()
		return nil
	}
	for q, k := range sc.m {
		if len(sc.m) < size {
			break
		}
		if !k.busy {
			_ = k.s.Close()
			delete(sc.m, q)
		}
	}
	k := &kept{s: st}
	sc.m[query] = k
	return k
}

// Close finalizes every kept statement (before the connection closes).
func (sc *Cache) Close() {
	for q, k := range sc.m {
		_ = k.s.Close()
		delete(sc.m, q)
	}
}

// Query runs query through its kept statement; ok is false when the
// caller must run it uncached.
func (sc *Cache) Query(ctx context.Context, c driver.Conn, query string, args []driver.NamedValue) (driver.Rows, bool, error) {
	k := sc.get(ctx, c, query)
	if k == nil {
		return nil, false, nil
	}
	rows, err := k.s.QueryContext(ctx, args)
	if err != nil {
		return nil, true, err
	}
	k.busy = true
	return &keptRows{Rows: rows, k: k}, true, nil
}

// Exec runs query through its kept statement; ok is false when the caller
// must run it uncached.
func (sc *Cache) Exec(ctx context.Context, c driver.Conn, query string, args []driver.NamedValue) (driver.Result, bool, error) {
	k := sc.get(ctx, c, query)
	if k == nil {
		return nil, false, nil
	}
	res, err := k.s.ExecContext(ctx, args)
	return res, true, err
}

// keptRows are the rows of a kept statement: closing them makes the
// statement available again. (Nothing asks database/sql for column types:
// the driver's optional column-type methods are not passed through.)
type keptRows struct {
	driver.Rows
	k *kept
}

func (r *keptRows) Close() error {
	r.k.busy = false
	return r.Rows.Close()
}
