package stmtcache_test

import (
	"fmt"
	"testing"

	"camellos/internal/testkit"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Statements kept prepared answer like fresh ones: the same query run
// again while its first rows are still open (in one transaction), more
// distinct queries than the cache keeps, and a table whose schema changed
// under a kept statement.
func TestKeptStatementsAnswerLikeFreshOnes(t *testing.T) {
	k := testkit.New(t)
	app := k.App
	if _, err := app.DB().NewQuery("CREATE TABLE kept (n INTEGER)").Execute(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if _, err := app.DB().NewQuery("INSERT INTO kept (n) VALUES ({:n})").Bind(dbx.Params{"n": i}).Execute(); err != nil {
			t.Fatal(err)
		}
	}
	const q = "SELECT n FROM kept WHERE n >= {:min} ORDER BY n"

	// The same text while its rows are open: the inner run is uncached.
	err := app.RunInTransaction(func(txApp core.App) error {
		rows, err := txApp.DB().NewQuery(q).Bind(dbx.Params{"min": 0}).Rows()
		if err != nil {
			return err
		}
		defer rows.Close()
		var outer []int
		for rows.Next() {
			var n int
			if err := rows.Scan(&n); err != nil {
				return err
			}
			outer = append(outer, n)
			var inner []int
			if err := txApp.DB().NewQuery(q).Bind(dbx.Params{"min": n}).Column(&inner); err != nil {
				return err
			}
			if len(inner) != 5-n || inner[0] != n {
				return fmt.Errorf("inner query from %d: %v", n, inner)
			}
		}
		if len(outer) != 5 {
			return fmt.Errorf("outer rows %v", outer)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}

	// More distinct statements than a connection keeps, twice over.
	for round := 0; round < 2; round++ {
		for i := 0; i < 300; i++ {
			var n int
			if err := app.DB().NewQuery(fmt.Sprintf("SELECT COUNT(*) + %d FROM kept", i)).Row(&n); err != nil {
				t.Fatal(err)
			}
			if n != 5+i {
				t.Fatalf("query %d answered %d", i, n)
			}
		}
	}

	// A schema change under a kept statement.
	var before []dbx.NullStringMap
	if err := app.DB().NewQuery("SELECT * FROM kept WHERE n = 1").All(&before); err != nil {
		t.Fatal(err)
	}
	if _, err := app.DB().NewQuery("ALTER TABLE kept ADD COLUMN label TEXT DEFAULT 'x'").Execute(); err != nil {
		t.Fatal(err)
	}
	var after []dbx.NullStringMap
	if err := app.DB().NewQuery("SELECT * FROM kept WHERE n = 1").All(&after); err != nil {
		t.Fatal(err)
	}
	if len(before) != 1 || len(after) != 1 || len(before[0]) != 1 || after[0]["label"].String != "x" {
		t.Fatalf("before %v, after %v", before, after)
	}

	// A failing statement leaves its kept statement usable.
	if _, err := app.DB().NewQuery("INSERT INTO kept (n) VALUES ({:n})").Bind(dbx.Params{"n": "1"}).Execute(); err != nil {
		t.Fatal(err)
	}
	if _, err := app.DB().NewQuery("CREATE UNIQUE INDEX kept_label ON kept (n, label)").Execute(); err == nil {
		t.Fatal("a unique index over duplicates was created")
	}
	var n int
	if err := app.DB().NewQuery("SELECT COUNT(*) FROM kept").Row(&n); err != nil || n != 6 {
		t.Fatalf("count %d, %v", n, err)
	}
}
