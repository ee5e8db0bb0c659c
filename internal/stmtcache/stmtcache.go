// Package stmtcache keeps prepared statements per database connection
// (internal/dbwatch's wrapper of data.db's connections uses it).
//
// database/sql and dbx hand every query to the driver as text, and the
// SQLite driver prepares it again each time: in the write-only benchmark
// statement preparation was ~27 % of the service's CPU, much of it inside
// write transactions (which hold SQLite's single writer). Each of the
// app's data.db connections therefore keeps its most recently used
// statements prepared (the driver resets a cached statement after use
// instead of finalizing it) and runs a query it has seen before without
// parsing it again.
//
// A statement is used by one query at a time: while the rows of a cached
// statement are open (a transaction may run another query before closing
// them), the same text runs uncached. SQLite re-prepares a cached
// statement by itself after a schema change. Access is serialised by
// database/sql, which never uses one connection from two goroutines at
// once.
package stmtcache

import (
	"container/list"
	"context"
	"database/sql/driver"
	"reflect"
)

// stmtCacheSize is how many statements a connection keeps prepared.
const stmtCacheSize = 128

// stmtCacheMaxQuery is the longest query text kept prepared (longer ones
// are built with varying lists of values and rarely repeat).
const stmtCacheMaxQuery = 4096

type cachedStmt struct {
	query string
	s     driver.Stmt
	busy  bool // rows of this statement are open
	el    *list.Element
}

// Cache is the statements kept prepared on one connection (New); the
// connection's wrapper runs its queries through Query and Exec and calls
// Close before the connection closes.
type Cache struct {
	byQuery map[string]*cachedStmt
	lru     *list.List // front: most recently used
}

// New returns an empty cache for one connection.
func New() *Cache {
	return &Cache{byQuery: map[string]*cachedStmt{}, lru: list.New()}
}

// get returns the idle cached statement of query, preparing it on c when
// needed, or nil when it cannot be used now (too long, busy, or the driver
// cannot prepare it: the caller then runs the query uncached, which
// reports any error).
func (sc *Cache) get(ctx context.Context, c driver.Conn, query string) *cachedStmt {
	if len(query) > stmtCacheMaxQuery {
		return nil
	}
	if cs, ok := sc.byQuery[query]; ok {
		if cs.busy {
			return nil
		}
		sc.lru.MoveToFront(cs.el)
		return cs
	}
	p, ok := c.(driver.ConnPrepareContext)
	if !ok {
		return nil
	}
	s, err := p.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	if _, ok := s.(driver.StmtQueryContext); !ok {
		_ = s.Close()
		return nil
	}
	if _, ok := s.(driver.StmtExecContext); !ok {
		_ = s.Close()
		return nil
	}
	cs := &cachedStmt{query: query, s: s}
	cs.el = sc.lru.PushFront(cs)
	sc.byQuery[query] = cs
	sc.evict()
	return cs
}

// evict finalizes the least recently used idle statements beyond the size.
func (sc *Cache) evict() {
	for el := sc.lru.Back(); el != nil && sc.lru.Len() > stmtCacheSize; {
		prev := el.Prev()
		cs := el.Value.(*cachedStmt)
		if !cs.busy {
			sc.lru.Remove(el)
			delete(sc.byQuery, cs.query)
			_ = cs.s.Close()
		}
		el = prev
	}
}

// Close finalizes every cached statement (before the connection closes).
func (sc *Cache) Close() {
	for _, cs := range sc.byQuery {
		_ = cs.s.Close()
	}
	sc.byQuery = map[string]*cachedStmt{}
	sc.lru.Init()
}

// Query runs query through its cached statement; ok is false when the
// caller must run it uncached.
func (sc *Cache) Query(ctx context.Context, c driver.Conn, query string, args []driver.NamedValue) (driver.Rows, bool, error) {
	cs := sc.get(ctx, c, query)
	if cs == nil {
		return nil, false, nil
	}
	rows, err := cs.s.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		return nil, true, err
	}
	cs.busy = true
	return &cachedRows{Rows: rows, cs: cs}, true, nil
}

// Exec runs query through its cached statement; ok is false when the
// caller must run it uncached.
func (sc *Cache) Exec(ctx context.Context, c driver.Conn, query string, args []driver.NamedValue) (driver.Result, bool, error) {
	cs := sc.get(ctx, c, query)
	if cs == nil {
		return nil, false, nil
	}
	res, err := cs.s.(driver.StmtExecContext).ExecContext(ctx, args)
	return res, true, err
}

// cachedRows are the rows of a cached statement: closing them makes the
// statement available again. The driver's optional column-type methods
// are passed through.
type cachedRows struct {
	driver.Rows
	cs *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.cs.busy = false
	return err
}

func (r *cachedRows) ColumnTypeDatabaseTypeName(index int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(index)
	}
	return ""
}

func (r *cachedRows) ColumnTypeLength(index int) (int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(index)
	}
	return 0, false
}

func (r *cachedRows) ColumnTypeNullable(index int) (bool, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(index)
	}
	return false, false
}

func (r *cachedRows) ColumnTypePrecisionScale(index int) (int64, int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(index)
	}
	return 0, 0, false
}

func (r *cachedRows) ColumnTypeScanType(index int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(index)
	}
	return reflect.TypeFor[any]()
}
