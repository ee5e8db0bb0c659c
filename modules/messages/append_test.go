package messages

import (
	"testing"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

func message(t *testing.T, id, camello, created string) *core.Record {
	t.Helper()
	col := core.NewBaseCollection(Collection)
	col.Fields.Add(&core.TextField{Name: "job"}, &core.TextField{Name: "camello"}, &core.TextField{Name: "author"},
		&core.TextField{Name: "body"}, &core.JSONField{Name: "files"}, &core.AutodateField{Name: "created", OnCreate: true})
	rec := core.NewRecord(col)
	rec.Id = id
	rec.Set("job", "job")
	rec.Set("camello", camello)
	rec.Set("author", "author")
	rec.Set("body", "hola "+id)
	dt, err := types.ParseDateTime(created)
	if err != nil {
		t.Fatal(err)
	}
	rec.SetRaw("created", dt)
	return rec
}

// A message is appended only when it sorts after every cached one
// (created, then id); the cached list a reader may hold is left as it was.
func TestAppendedKeepsTheOrder(t *testing.T) {
	a := message(t, "aaa", "c1", "2026-01-01 10:00:00.000Z")
	b := message(t, "bbb", "c2", "2026-01-01 10:00:01.000Z")
	l, err := renderMessages([]*core.Record{a, b})
	if err != nil {
		t.Fatal(err)
	}
	add := func(rec *core.Record) (*jobMessages, bool) {
		one, err := renderMessages([]*core.Record{rec})
		if err != nil {
			t.Fatal(err)
		}
		return l.appended(rec, one)
	}
	for name, rec := range map[string]*core.Record{
		"older":                    message(t, "zzz", "c1", "2026-01-01 10:00:00.500Z"),
		"same created, smaller id": message(t, "bba", "c1", "2026-01-01 10:00:01.000Z"),
		"the last one again":       b,
	} {
		if _, ok := add(rec); ok {
			t.Errorf("%s: appended", name)
		}
	}
	c := message(t, "bbc", "c1", "2026-01-01 10:00:01.000Z")
	n, ok := add(c)
	if !ok || len(n.items) != 3 || n.lastID != "bbc" || n.items[2].camello != "c1" || n.items[1].camello != "c2" {
		t.Fatalf("appended: %v %+v", ok, n)
	}
	if len(l.items) != 2 || l.lastID != "bbb" {
		t.Fatalf("the held list changed: %+v", l)
	}
	full := &jobMessages{items: make([]messageItem, maxCachedPerJob), lastCreated: "2026-01-01 10:00:00.000Z", lastID: "a"}
	one, _ := renderMessages([]*core.Record{c})
	if n, ok := full.appended(c, one); !ok || !n.tooMany {
		t.Fatalf("past the bound: %v %+v", ok, n)
	}
}
