package clock_test

import (
	"testing"
	"time"

	"camellos/internal/clock"

	"github.com/pocketbase/pocketbase/tests"
)

func TestSetMovesTheClockOfOneApp(t *testing.T) {
	app, err := tests.NewTestApp()
	if err != nil {
		t.Fatal(err)
	}
	defer app.Cleanup()
	other, err := tests.NewTestApp()
	if err != nil {
		t.Fatal(err)
	}
	defer other.Cleanup()
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("COT", -5*3600))
	clock.Set(app, func() time.Time { return at })
	if got := clock.Now(app); !got.Equal(at) || got.Location() != time.UTC {
		t.Fatalf("Now = %v, want %v in UTC", got, at)
	}
	if got := clock.Now(other); got.Sub(time.Now()) > time.Hour || time.Since(got) > time.Hour {
		t.Fatalf("another app's clock moved: %v", got)
	}
	clock.Set(app, nil)
	if got := clock.Now(app); got.Equal(at) {
		t.Fatal("Set(nil) kept the test clock")
	}
}
