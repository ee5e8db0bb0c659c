package backup_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"camellos/internal/s3test"
	"camellos/internal/testkit"
	"camellos/modules/backup"
	"camellos/modules/users"
)

func setenv(t *testing.T, env map[string]string) {
	for k, v := range env {
		t.Setenv(k, v)
	}
}

// With S3_FILES=1 a camello's photo is stored on the S3 server (a real
// versitygw) and served back through /uploads/...
func TestCamelloPhotoOnS3(t *testing.T) {
	s3 := s3test.Start(t, "files")
	setenv(t, s3.Env("files"))
	t.Setenv("S3_FILES", "1")
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	if !k.App.Settings().S3.Enabled {
		t.Fatal("S3_FILES=1 did not enable the files storage")
	}
	img := testkit.PNG(t)
	trades, _ := json.Marshal([]string{"electricidad"})
	m := testkit.NewMultipart()
	for f, v := range map[string]string{
		"name": "Luz Gómez", "email": "luz" + testkit.Unique() + "@example.com", "phone": "3109876543",
		"password": "secreto-123", "confirmPassword": "secreto-123", "acceptTerms": "true",
		"city": "Medellín", "trades": string(trades), "serviceIds": "[]",
	} {
		m.Field(f, v)
	}
	m.File("file", "yo.png", img)
	res := k.Post("/api/register/camello", "", m.Close())
	if res.Status != 201 {
		t.Fatalf("register: %d %s", res.Status, res.Raw)
	}
	photo := res.Str("camello.photo")
	name := filepath.Base(photo)
	// The camello is PENDIENTE: its photo is not public (issue 14), an admin reads it.
	_, admin := k.UserWithSession(users.RoleAdmin)
	served := k.Get(photo, admin)
	if served.Status != 200 || !bytes.Equal(served.Raw, img) || served.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("photo from S3: %d %q (%d bytes)", served.Status, served.Header.Get("Content-Type"), len(served.Raw))
	}
	// The object is in the bucket, not on the local disk.
	found := false
	_ = filepath.Walk(filepath.Join(s3.Dir, "files"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && filepath.Base(p) == name {
			found = true
		}
		return nil
	})
	if !found {
		t.Fatalf("%s is not in the S3 bucket", name)
	}
	local := false
	_ = filepath.Walk(filepath.Join(k.App.DataDir(), "storage"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && filepath.Base(p) == name {
			local = true
		}
		return nil
	})
	if local {
		t.Fatal("the photo was also written to the local storage")
	}
}

// A backup to an unreachable S3 or with wrong credentials fails loudly
// (an error, the failure counted) and the service keeps serving.
func TestBackupToBrokenS3FailsLoudly(t *testing.T) {
	s3 := s3test.Start(t, "backups")
	for _, tc := range []struct {
		name string
		env  map[string]string
	}{
		{"wrong secret", func() map[string]string { e := s3.Env("backups"); e["S3_SECRET"] = "not-the-secret"; return e }()},
		{"unreachable", func() map[string]string {
			e := s3.Env("backups")
			e["S3_ENDPOINT"] = "http://" + s3test.FreePort(t)
			return e
		}()},
		{"no such bucket", s3.Env("no-such-bucket")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setenv(t, tc.env)
			t.Setenv("METRICS_TOKEN", "tok")
			k := testkit.New(t)
			if !k.App.Settings().Backups.S3.Enabled {
				t.Fatal("S3 backups not enabled")
			}
			err := k.App.CreateBackup(context.Background(), "x.zip")
			if err == nil || !strings.Contains(err.Error(), "la copia de seguridad falló") {
				t.Fatalf("backup to a broken S3: %v", err)
			}
			if r := k.Get("/api/health", ""); r.Status != 200 {
				t.Fatalf("health after a failed backup: %d", r.Status)
			}
			if r := k.Get("/api/camellos", ""); r.Status != 200 {
				t.Fatalf("listing after a failed backup: %d", r.Status)
			}
			r := k.Do(testkit.Req{Method: "GET", Path: "/metrics", Headers: map[string]string{"Authorization": "Bearer tok"}})
			if !strings.Contains(string(r.Raw), `camellos_backups_total{outcome="failed"} 1`) {
				t.Fatal("the failed backup is not counted")
			}
			if backup.StatsOf(k.App).Failed.Load() != 1 {
				t.Fatal("failure not counted")
			}
		})
	}
}

// BACKUP_SCHEDULE and BACKUP_KEEP reach PocketBase's backup settings; with
// neither, scheduled backups are off and 7 are kept.
func TestBackupSettingsFromEnvironment(t *testing.T) {
	t.Run("set", func(t *testing.T) {
		t.Setenv("BACKUP_SCHEDULE", "0 3 * * *")
		t.Setenv("BACKUP_KEEP", "14")
		k := testkit.New(t)
		b := k.App.Settings().Backups
		if b.Cron != "0 3 * * *" || b.CronMaxKeep != 14 || b.S3.Enabled {
			t.Fatalf("backups settings: %+v", b)
		}
		scheduled := false
		for _, j := range k.App.Cron().Jobs() {
			if j.Id() == "__pbAutoBackup__" && j.Expression() == "0 3 * * *" {
				scheduled = true
			}
		}
		if !scheduled {
			t.Fatal("PocketBase did not schedule the automatic backups")
		}
	})
	t.Run("default", func(t *testing.T) {
		t.Setenv("BACKUP_SCHEDULE", "")
		t.Setenv("BACKUP_KEEP", "")
		k := testkit.New(t)
		b := k.App.Settings().Backups
		if b.Cron != "" || b.CronMaxKeep != 7 || k.App.Settings().S3.Enabled {
			t.Fatalf("backups settings: %+v", b)
		}
		for _, j := range k.App.Cron().Jobs() {
			if j.Id() == "__pbAutoBackup__" {
				t.Fatal("automatic backups scheduled without BACKUP_SCHEDULE")
			}
		}
	})
}
