package apitest_test

import (
	"bytes"
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/seed"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
)

func TestSeedIsIdempotent(t *testing.T) {
	k := testkit.New(t)
	var out bytes.Buffer
	first, err := seed.Run(k.App, seed.Options{Camellos: 24, Clients: 6, Out: &out})
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	if first.Camellos != 24 || first.Users != 24+6+1 || first.Categories == 0 || first.Services == 0 ||
		first.Jobs != 36 || first.Reviews == 0 || first.Appointments == 0 || first.LegalDocuments != 2 {
		t.Fatalf("first run created %+v", first)
	}
	text := out.String()
	for _, want := range []string{"] 24/24 camellos", seed.AdminEmail, seed.AdminPassword, seed.ClientEmail, seed.CamelloEmail, "\r["} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}

	counts := func() map[string]int {
		m := map[string]int{}
		for _, c := range []string{"users", "categories", "services", "camellos", "availability", "jobs", "reviews", "appointments", "legal_documents", "legal_document_versions", "notifications"} {
			m[c] = k.Count(c, "")
		}
		return m
	}
	before := counts()

	second, err := seed.Run(k.App, seed.Options{Camellos: 24, Clients: 6})
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	if second != (seed.Result{}) {
		t.Fatalf("second run created %+v", second)
	}
	after := counts()
	for c, n := range before {
		if after[c] != n {
			t.Errorf("%s: %d after the second run, %d before", c, after[c], n)
		}
	}

	tests := []struct {
		name       string
		collection string
		filter     string
		params     map[string]any
		atLeast    int
	}{
		{"most camellos are ACTIVO", "camellos", "status = 'ACTIVO'", nil, 20},
		{"some camellos wait for review", "camellos", "status = 'PENDIENTE'", nil, 1},
		{"camellos have photos", "camellos", "photo != ''", nil, 20},
		{"premium camellos", "camellos", "premium = true", nil, 1},
		{"every camello has availability", "availability", "", nil, 24},
		{"jobs PENDIENTE without provider", "jobs", "status = 'PENDIENTE' AND provider = ''", nil, 1},
		{"jobs PENDIENTE requested from a profile", "jobs", "status = 'PENDIENTE' AND provider != '' AND source = 'PERFIL'", nil, 1},
		{"jobs ASIGNADO", "jobs", "status = 'ASIGNADO' AND provider != ''", nil, 1},
		{"jobs EN_PROGRESO", "jobs", "status = 'EN_PROGRESO'", nil, 1},
		{"jobs COMPLETADO", "jobs", "status = 'COMPLETADO'", nil, 1},
		{"jobs CANCELADO", "jobs", "status = 'CANCELADO'", nil, 1},
		{"rated camellos", "camellos", "ratingCount > 0 AND ratingAvg >= 1", nil, 1},
		{"admin", "users", "role = 'ADMIN' AND email = {:e}", map[string]any{"e": seed.AdminEmail}, 1},
		{"legal versions", "legal_document_versions", "version = 1", nil, 2},
		{"programmed appointments", "appointments", "status = 'PROGRAMADA'", nil, 1},
		{"demo inbox", "notifications", "", nil, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if n := k.Count(tc.collection, tc.filter, tc.params); n < tc.atLeast {
				t.Fatalf("%d records, want at least %d", n, tc.atLeast)
			}
		})
	}

	// The ratings match the reviews.
	var row struct {
		Avg   float64 `db:"avg"`
		Count int     `db:"cnt"`
		Rated float64 `db:"ratingAvg"`
		Num   int     `db:"ratingCount"`
	}
	err = k.App.DB().NewQuery(`SELECT AVG(r.rating) AS avg, COUNT(*) AS cnt, c.ratingAvg, c.ratingCount
		FROM reviews r JOIN camellos c ON c.id = r.camello GROUP BY c.id ORDER BY cnt DESC LIMIT 1`).One(&row)
	if err != nil {
		t.Fatal(err)
	}
	if row.Count != row.Num || row.Rated < row.Avg-0.01 || row.Rated > row.Avg+0.01 {
		t.Fatalf("rating %v/%d, reviews say %v/%d", row.Rated, row.Num, row.Avg, row.Count)
	}

	// Demo logins work with the passwords printed.
	for email, pass := range map[string]string{seed.AdminEmail: seed.AdminPassword, seed.ClientEmail: seed.ClientPassword, seed.CamelloEmail: seed.CamelloPassword} {
		u, err := k.App.FindAuthRecordByEmail(users.Collection, email)
		if err != nil || !users.CheckPassword(u, pass) {
			t.Errorf("%s: cannot sign in with the printed password (%v)", email, err)
		}
	}
	// The demo camello is ACTIVO with a photo saved in storage.
	cam, err := k.App.FindFirstRecordByFilter("camellos", "name != '' && user.email = {:e}", dbx.Params{"e": seed.CamelloEmail})
	if err != nil || cam.GetString("status") != "ACTIVO" || cam.GetString("photo") == "" {
		t.Fatalf("demo camello: %v %v", cam, err)
	}
}
