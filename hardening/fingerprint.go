package hardening

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// DomainTables are the tables whose content a refused request must leave
// untouched.
var DomainTables = []string{
	"users", "sessions", "categories", "services", "camellos", "jobs", "reviews", "appointments",
	"availability", "calendar_feeds", "notifications", "notification_preferences", "push_subscriptions",
	"legal_documents", "legal_document_versions", "legal_acceptances", "quotes", "messages",
}

// Watch fingerprints the domain tables of a running service. It holds one
// connection of the service's pool for itself and reads the tables again
// only when SQLite's data_version on that connection moved, that is when
// some other connection (any of the service's, any process's) committed
// since the last read: most refused requests commit nothing, and reading
// 18 tables after each of them was a third of the bad-input sweep's CPU.
type Watch struct {
	conn    *sql.Conn
	version int64
	last    map[string]string
	// Calls and Reads count the fingerprints asked for and those that
	// read the tables.
	Calls, Reads int
}

// NewWatch pins a connection of app's data pool until the test ends.
func NewWatch(t testing.TB, app core.App) *Watch {
	t.Helper()
	pool, ok := app.ConcurrentDB().(*dbx.DB)
	if !ok {
		t.Fatalf("the app's data pool is a %T, not a *dbx.DB", app.ConcurrentDB())
	}
	conn, err := pool.DB().Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &Watch{conn: conn}
}

// Fingerprint hashes every row of the domain tables, per table, so a
// changed record shows as a changed table. The data version is read
// before the tables: a commit made while they are read moves it, and the
// next call reads them again.
func (w *Watch) Fingerprint() (map[string]string, error) {
	ctx := context.Background()
	w.Calls++
	var v int64
	if err := w.conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		return nil, err
	}
	if w.last != nil && v == w.version {
		return w.last, nil
	}
	w.Reads++
	out := make(map[string]string, len(DomainTables))
	for _, table := range DomainTables {
		sum, err := w.hash(ctx, table)
		if err != nil {
			return nil, err
		}
		out[table] = sum
	}
	w.version, w.last = v, out
	return out, nil
}

// hash is one table's fingerprint: every column name and value of every
// row, in rowid order, each length-prefixed (NULL and empty told apart).
func (w *Watch) hash(ctx context.Context, table string) (string, error) {
	rows, err := w.conn.QueryContext(ctx, `SELECT * FROM "`+table+`" ORDER BY rowid`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	h := sha256.New()
	put := func(b []byte, null bool) {
		n := uint64(len(b)) << 1
		if null {
			n |= 1
		}
		h.Write(binary.AppendUvarint(nil, n))
		h.Write(b)
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		for i, c := range cols {
			put([]byte(c), false)
			put(vals[i], vals[i] == nil)
		}
		h.Write([]byte{0xff})
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Changed lists the tables whose fingerprints differ.
func Changed(before, after map[string]string) []string {
	var out []string
	for _, t := range DomainTables {
		if before[t] != after[t] {
			out = append(out, t)
		}
	}
	return out
}
