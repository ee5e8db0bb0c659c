package testkit

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"camellos/internal/dbwatch"
	"camellos/modules"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
	"golang.org/x/crypto/bcrypt"
)

// The migrated data dir, built once per `go test` run (shared.go: every
// test binary of the run reads the one the first of them built; once per
// binary when it runs outside `go test`) and copied into every kit's fresh
// data dir: running every migration (the schema and the gazetteer's rows)
// costs about 1.5 s of CPU per boot, copying its files a few milliseconds.
// A migration registered after the template was built (a test's own) is
// still applied at boot: tests.NewTestAppWithConfig runs every migration
// not yet recorded in the copy.
var template struct {
	once  sync.Once
	files map[string][]byte // path relative to the data dir → content
	err   error
}

// migratedTemplate returns the files of a freshly migrated data dir, made
// through the service's own database connections (modules.DBConnect:
// pragmas that shape the file, such as the page size, are the same).
func migratedTemplate() (map[string][]byte, error) {
	template.once.Do(func() {
		template.files, template.err = sharedTemplate(buildTemplate)
	})
	return template.files, template.err
}

func buildTemplate() (map[string][]byte, error) {
	empty, err := os.MkdirTemp("", "camellos-testkit-template-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(empty)
	w := dbwatch.New()
	defer w.Close()
	app, err := tests.NewTestAppWithConfig(core.BaseAppConfig{
		DataDir:       empty,
		EncryptionEnv: "pb_test_env",
		DBConnect:     modules.DBConnect(w),
	})
	if err != nil {
		return nil, fmt.Errorf("migrated template: %w", err)
	}
	dir := app.DataDir() // the clone tests.NewTestAppWithConfig migrated
	defer os.RemoveAll(dir)
	if err := cheapPasswords(app); err != nil {
		return nil, fmt.Errorf("template password cost: %w", err)
	}
	// Everything in the main files, then every connection closed, so the
	// files alone are the whole state.
	if _, err := app.DB().NewQuery("PRAGMA wal_checkpoint(TRUNCATE)").Execute(); err != nil {
		return nil, fmt.Errorf("template checkpoint: %w", err)
	}
	if _, err := app.AuxDB().NewQuery("PRAGMA wal_checkpoint(TRUNCATE)").Execute(); err != nil {
		return nil, fmt.Errorf("template checkpoint: %w", err)
	}
	if err := app.ResetBootstrapState(); err != nil {
		return nil, fmt.Errorf("template close: %w", err)
	}
	files, err := readTree(dir)
	if err != nil {
		return nil, fmt.Errorf("template read: %w", err)
	}
	return files, nil
}

// cheapPasswords sets bcrypt's lowest cost on the password field of every
// auth collection of the template (users, superusers). PocketBase's
// default (10) costs about 70 ms of CPU per password stored or checked,
// and a test creates several users; the check itself (right password in,
// wrong one out, the 72-byte derivation of users.SetPassword) is the same
// at any cost. Only tests' data dirs have it: the migrations, the binary
// and every child process a test starts keep the default. The hashing
// pool's flood test still hashes at the default cost (unknown e-mails are
// checked against modules/auth's dummy hash, made outside any collection).
func cheapPasswords(app core.App) error {
	cols, err := app.FindAllCollections(core.CollectionTypeAuth)
	if err != nil {
		return err
	}
	for _, col := range cols {
		f, ok := col.Fields.GetByName(core.FieldNamePassword).(*core.PasswordField)
		if !ok {
			continue
		}
		f.Cost = bcrypt.MinCost
		if err := app.Save(col); err != nil {
			return err
		}
	}
	return nil
}

// writeTemplate fills the empty data dir with the migrated template.
func writeTemplate(dataDir string) error {
	files, err := migratedTemplate()
	if err != nil {
		return err
	}
	return writeFiles(dataDir, files)
}

// readTree reads every file under dir, by path relative to it, but
// SQLite's shared-memory index (-shm), which belongs to open connections.
func readTree(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "-shm") {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files[rel], err = os.ReadFile(path)
		return err
	})
	return files, err
}

// writeFiles writes files (by path relative to dir) under dir.
func writeFiles(dir string, files map[string][]byte) error {
	for rel, content := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}
