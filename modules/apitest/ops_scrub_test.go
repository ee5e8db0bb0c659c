package apitest_test

import (
	"strings"
	"testing"

	"camellos/internal/logs"
	"camellos/internal/testkit"
)

// Log rows written before redaction existed (an upgraded data dir) lose
// their secrets when the service starts; other rows stay as they are.
func TestStoredLogsAreScrubbed(t *testing.T) {
	k := testkit.New(t)
	insert := func(id, msg, data string) {
		if _, err := k.App.AuxDB().NewQuery("INSERT INTO _logs (id, level, message, data, created) VALUES ({:id}, 0, {:m}, {:d}, '2026-11-01 00:00:00.000Z')").
			Bind(map[string]any{"id": id, "m": msg, "d": data}).Execute(); err != nil {
			t.Fatal(err)
		}
	}
	insert("oldfeed0000000a", "GET /api/agenda/calendar/SECRETOFEED123.ics", `{"url":"/api/agenda/calendar/SECRETOFEED123.ics","type":"request"}`)
	insert("oldreset000000b", "POST /api/auth/password/reset", `{"referer":"https://c.example/restablecer.html?token=SECRETORESET456","type":"request"}`)
	insert("plain0000000000", "GET /api/camellos?page=2", `{"url":"/api/camellos?page=2","type":"request"}`)
	n, err := logs.ScrubStored(k.App)
	if err != nil || n != 2 {
		t.Fatalf("scrubbed %d rows: %v", n, err)
	}
	var all []struct {
		Message string `db:"message"`
		Data    string `db:"data"`
	}
	if err := k.App.AuxDB().NewQuery("SELECT message, data FROM _logs").All(&all); err != nil {
		t.Fatal(err)
	}
	text := ""
	for _, r := range all {
		text += r.Message + r.Data
	}
	if strings.Contains(text, "SECRETOFEED123") || strings.Contains(text, "SECRETORESET456") || !strings.Contains(text, "/api/camellos?page=2") {
		t.Fatalf("after the scrub: %s", text)
	}
}
