package stmtcache_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"camellos/internal/stmtcache"

	_ "modernc.org/sqlite"
)

// BenchmarkKeptStatement: one indexed lookup by primary key and one
// single-row UPDATE, run as text (prepared every time, what the driver
// does without the cache) and through a kept statement, on the same
// connection (go test -run x -bench KeptStatement ./internal/stmtcache).
func BenchmarkKeptStatement(b *testing.B) {
	db, err := sql.Open("sqlite", filepath.Join(b.TempDir(), "b.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	drvConn, err := db.Driver().Open(filepath.Join(b.TempDir(), "c.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer drvConn.Close()
	ctx := context.Background()
	q := drvConn.(driver.QueryerContext)
	x := drvConn.(driver.ExecerContext)
	if _, err := x.ExecContext(ctx, "PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF", nil); err != nil { // CPU, not the disk
		b.Fatal(err)
	}
	if _, err := x.ExecContext(ctx, "CREATE TABLE jobs (id TEXT PRIMARY KEY, client TEXT, provider TEXT, status TEXT, service TEXT, n INTEGER)", nil); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		if _, err := x.ExecContext(ctx, fmt.Sprintf("INSERT INTO jobs VALUES ('j%d', 'c', '', 'PENDIENTE', 's', 0)", i), nil); err != nil {
			b.Fatal(err)
		}
	}
	const sel = "SELECT id, client, provider, status, service FROM jobs WHERE id = ? LIMIT 1"
	const upd = "UPDATE jobs SET n = n + 1 WHERE id = ?"
	args := []driver.NamedValue{{Ordinal: 1, Value: "j500"}}
	read := func(rows driver.Rows, err error) {
		if err != nil {
			b.Fatal(err)
		}
		vals := make([]driver.Value, 5)
		for rows.Next(vals) != io.EOF {
		}
		rows.Close()
	}
	b.Run("select/text", func(b *testing.B) {
		for range b.N {
			read(q.QueryContext(ctx, sel, args))
		}
	})
	c := stmtcache.New()
	defer c.Close()
	b.Run("select/kept", func(b *testing.B) {
		for range b.N {
			rows, _, err := c.Query(ctx, drvConn, sel, args)
			read(rows, err)
		}
	})
	b.Run("update/text", func(b *testing.B) {
		for range b.N {
			if _, err := x.ExecContext(ctx, upd, args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("update/kept", func(b *testing.B) {
		for range b.N {
			if _, _, err := c.Exec(ctx, drvConn, upd, args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
