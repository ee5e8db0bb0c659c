package timefmt

import "testing"

// TestAppendISOOfStoredIsISOOfStored: PocketBase's form (leap days, the
// last millisecond), impossible dates and times, other forms, garbage.
func TestAppendISOOfStoredIsISOOfStored(t *testing.T) {
	for _, d := range []string{"2026-11-27 10:00:00.000Z", "2024-02-29 23:59:59.999Z", "2025-02-29 10:00:00.000Z", "2026-13-01 10:00:00.000Z",
		"2026-04-31 10:00:00.000Z", "2026-11-27 24:00:00.000Z", "2026-11-27 10:60:00.000Z", "2026-11-27 10:00:60.000Z", "2026-11-00 10:00:00.000Z",
		"1900-02-29 10:00:00.000Z", "2000-02-29 10:00:00.000Z", "0001-01-01 00:00:00.000Z", "", "2026-11-27T10:00:00.000Z",
		"2026-11-27 10:00:00Z", "2026-11-27 10:00:00.000", "2026-11-27 1a:00:00.000Z", "2026-11-27", "basura", "2026-02-03T04:05:06.789Z"} {
		want := ISOOfStored(d)
		if got := string(AppendISOOfStored([]byte("x"), d)); got != "x"+want {
			t.Errorf("date %q: %s, ISOOfStored %s", d, got[1:], want)
		}
	}
}
