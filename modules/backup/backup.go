// Package backup is the operations area's backups and object storage, all
// through PocketBase's own machinery (app.CreateBackup, app.RestoreBackup,
// the Backups settings and its S3 filesystem):
//
//   - at start the environment is applied to the settings in memory:
//     BACKUP_SCHEDULE → Backups.Cron (off when unset), BACKUP_KEEP →
//     Backups.CronMaxKeep, S3_* → Backups.S3, and with S3_FILES=1 also the
//     uploaded files' storage (settings.S3); the environment wins over the
//     dashboard on every start and settings reload;
//   - the CLI `backup create [NAME]`, `backup list`, `backup restore NAME`;
//   - a running `serve` holds an exclusive lock on pb_data/.camellos-serve.lock
//     (a second `serve` on the same dir fails: the limits and caches are per
//     process); the CLI's create and restore take it too and refuse to run
//     while a service uses the data dir (a copy of a live SQLite directory
//     made from outside the process could be torn; a restore under a live
//     service would be overwritten). A live service is backed up by its own
//     schedule or from the dashboard (in-process, consistent).
package backup

import (
	"archive/zip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"camellos/internal/config"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/cron"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/spf13/cobra"
)

// LockFile is the name, inside the data dir, of the file a serving process
// holds a shared lock on.
const LockFile = ".camellos-serve.lock"

const storeKeyStats = "camellos.backup.stats"

// Stats counts the backups this process made or failed (metrics).
type Stats struct {
	Created, Failed atomic.Int64
}

// StatsOf is app's backup counters.
func StatsOf(app core.App) *Stats {
	return app.Store().GetOrSet(storeKeyStats, func() any { return &Stats{} }).(*Stats)
}

// Register applies the environment to the backup and storage settings,
// keeps the lock file out of archives, counts backups and holds the serve
// lock while serving.
func Register(app core.App) {
	apply := func() error { return Apply(app, config.Of(app)) }
	app.OnBootstrap().BindFunc(func(e *core.BootstrapEvent) error {
		if err := e.Next(); err != nil {
			return err
		}
		return apply()
	})
	app.OnSettingsReload().BindFunc(func(e *core.SettingsReloadEvent) error {
		if err := e.Next(); err != nil {
			return err
		}
		return apply()
	})
	exclude := func(e *core.BackupEvent) {
		e.Exclude = append(e.Exclude, LockFile)
	}
	app.OnBackupCreate().BindFunc(func(e *core.BackupEvent) error {
		exclude(e)
		if err := refuseExisting(e.App, e.Name); err != nil {
			return err
		}
		err := e.Next()
		if err != nil {
			StatsOf(e.App).Failed.Add(1)
			e.App.Logger().Error("backup failed", "name", e.Name, "error", err.Error())
			return fmt.Errorf("la copia de seguridad falló: %w", Readable(err))
		}
		StatsOf(e.App).Created.Add(1)
		e.App.Logger().Info("backup created", "name", e.Name)
		return nil
	})
	app.OnBackupRestore().BindFunc(func(e *core.BackupEvent) error {
		exclude(e)
		return e.Next()
	})
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		if se.Server == nil { // the test kit's in-process server
			return se.Next()
		}
		if _, held := se.App.Store().Get(storeKeyServeLock).(*os.File); !held {
			if err := LockForServe(se.App); err != nil {
				return err
			}
		}
		return se.Next()
	})
	if app.IsBootstrapped() {
		// The test kit registers after bootstrapping: the settings-reload
		// event runs with the settings in memory kept as they are (no read
		// from the database, which would drop a test's in-memory settings):
		// the handler above applies the environment and PocketBase's own
		// handler schedules the backups from it.
		err := app.OnSettingsReload().Trigger(&core.SettingsReloadEvent{App: app}, func(*core.SettingsReloadEvent) error { return nil })
		if err != nil {
			app.Logger().Error("backup settings", "error", err.Error())
		}
	}
}

// Apply writes cfg's backup and S3 settings into app's settings (in
// memory: the environment stays their source; the service never saves them).
func Apply(app core.App, cfg config.Config) error {
	if cfg.BackupSchedule != "" {
		if _, err := cron.NewSchedule(cfg.BackupSchedule); err != nil {
			return fmt.Errorf("BACKUP_SCHEDULE: expresión cron inválida: %w", err)
		}
	}
	s3 := core.S3Config{}
	if cfg.S3Enabled() {
		s3 = core.S3Config{
			Enabled:        true,
			Bucket:         cfg.S3Bucket,
			Region:         cfg.S3Region,
			Endpoint:       cfg.S3Endpoint,
			AccessKey:      cfg.S3AccessKey,
			Secret:         cfg.S3Secret,
			ForcePathStyle: cfg.S3ForcePathStyle,
		}
		if s3.Region == "" {
			s3.Region = "us-east-1"
		}
	} else if cfg.S3Files {
		return errors.New("S3_FILES=1 requiere S3_ENDPOINT y S3_BUCKET")
	}
	st := app.Settings()
	st.Backups.Cron = cfg.BackupSchedule
	st.Backups.CronMaxKeep = cfg.BackupKeep
	st.Backups.S3 = s3
	if cfg.S3Files {
		st.S3 = s3
	} else {
		st.S3 = core.S3Config{}
	}
	return nil
}

const storeKeyServeLock = "camellos.backup.serveLock"

// LockForServe takes the data dir's lock exclusively for a service, until
// the app terminates: a second `serve`, a backup or a restore on the same
// dir is refused while it runs. The CLI calls it before bootstrapping
// `serve`, so that a second service fails before it opens anything.
func LockForServe(app core.App) error {
	f, err := lockDataDir(app.DataDir(), syscall.LOCK_EX|lockServe)
	if err != nil {
		return err
	}
	app.Store().Set(storeKeyServeLock, f)
	app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
		_ = f.Close()
		return e.Next()
	})
	return nil
}

// lockServe marks a lock taken for `serve` (its refusal names another service).
const lockServe = 1 << 20

// lockDataDir takes a flock on the data dir's lock file (LOCK_SH for a
// service, LOCK_EX for the CLI), without waiting.
func lockDataDir(dir string, how int) (*os.File, error) {
	forServe := how&lockServe != 0
	how &^= lockServe
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			if forServe {
				return nil, fmt.Errorf("el directorio de datos %s ya está en uso por otro proceso de camellos "+
					"(otro `serve`, o una copia o restauración en curso): un solo servicio por directorio de datos", dir)
			}
			return nil, fmt.Errorf("el directorio de datos %s está en uso por un servicio en marcha: deténgalo antes "+
				"(o, con el servicio en marcha, use BACKUP_SCHEDULE o el panel /_/ para las copias)", dir)
		}
		return nil, err
	}
	return f, nil
}

// ---------------------------------------------------------------------------
// CLI

// Command is `backup create [NAME] | list | restore NAME`.
func Command(app core.App) *cobra.Command {
	root := &cobra.Command{Use: "backup", Short: "Copias de seguridad (local o S3, con la maquinaria de PocketBase)"}
	root.AddCommand(&cobra.Command{
		Use:   "create [NAME]",
		Short: "Crea una copia de pb_data (servicio detenido); imprime su nombre",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
				if err := validName(name); err != nil {
					return err
				}
			} else {
				name = "camellos_" + time.Now().UTC().Format("20060102_150405") + ".zip"
			}
			lock, err := lockDataDir(app.DataDir(), syscall.LOCK_EX)
			if err != nil {
				return err
			}
			defer lock.Close()
			if err := app.CreateBackup(context.Background(), name); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), name)
			return nil
		},
	})
	root.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "Lista las copias (nombre, tamaño, fecha UTC), la más reciente primero",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			list, err := List(app)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			for _, b := range list {
				fmt.Fprintf(tw, "%s\t%d\t%s\n", b.Name, b.Size, b.Modified.UTC().Format(time.RFC3339))
			}
			return tw.Flush()
		},
	})
	root.AddCommand(&cobra.Command{
		Use:   "restore NAME",
		Short: "Restaura una copia sobre pb_data (con el servicio detenido)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := Restore(app, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Restaurada %s en %s\n", args[0], app.DataDir())
			return nil
		},
	})
	return root
}

// refuseExisting refuses a backup name already in the backups storage (a
// new backup never overwrites an old one silently). A storage that cannot
// be asked is left to the backup itself, which fails and is counted.
func refuseExisting(app core.App, name string) error {
	fsys, err := app.NewBackupsFilesystem()
	if err != nil {
		return nil
	}
	defer fsys.Close()
	if exists, err := fsys.Exists(name); err == nil && exists {
		return fmt.Errorf("ya existe una copia llamada %q: elija otro nombre (vea `backup list`)", name)
	}
	return nil
}

func validName(name string) error {
	if name != filepath.Base(name) || !strings.HasSuffix(name, ".zip") || strings.HasPrefix(name, ".") || len(name) > 150 {
		return fmt.Errorf("nombre de copia inválido %q: se espera un nombre de archivo .zip sin carpetas", name)
	}
	return nil
}

// Backup is one stored backup.
type Backup struct {
	Name     string
	Size     int64
	Modified time.Time
}

// List returns the backups of app's backups storage, newest first.
func List(app core.App) ([]Backup, error) {
	fsys, err := app.NewBackupsFilesystem()
	if err != nil {
		return nil, fmt.Errorf("almacenamiento de copias: %w", err)
	}
	defer fsys.Close()
	objs, err := fsys.List("")
	if err != nil {
		return nil, fmt.Errorf("no se pudo listar las copias: %w", Readable(err))
	}
	out := make([]Backup, 0, len(objs))
	for _, o := range objs {
		out = append(out, Backup{Name: o.Key, Size: o.Size, Modified: o.ModTime})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Modified.After(out[j].Modified) })
	return out, nil
}

// Restore replaces app's data dir with the backup name, after checking it
// (it exists, is a zip, holds a data.db that passes integrity_check): an
// unknown name or a damaged archive is an error and the current data stays
// untouched. The data dir must not be in use by a service.
func Restore(app core.App, name string) error {
	if err := validName(name); err != nil {
		return err
	}
	lock, err := lockDataDir(app.DataDir(), syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := Check(app, name); err != nil {
		return err
	}
	// PocketBase restarts the process (execve) after a restore; the CLI is
	// done instead: the restart event is not passed on.
	app.OnTerminate().Bind(&hook.Handler[*core.TerminateEvent]{
		Id:       "camellosRestoreNoRestart",
		Priority: -1_000_000,
		Func: func(e *core.TerminateEvent) error {
			if e.IsRestart {
				return nil
			}
			return e.Next()
		},
	})
	if err := app.RestoreBackup(context.Background(), name); err != nil {
		return fmt.Errorf("la restauración falló (los datos actuales no cambiaron): %w", Readable(err))
	}
	return nil
}

// Check verifies that the backup name exists and holds a sound data.db.
func Check(app core.App, name string) error {
	fsys, err := app.NewBackupsFilesystem()
	if err != nil {
		return fmt.Errorf("almacenamiento de copias: %w", err)
	}
	defer fsys.Close()
	if ok, err := fsys.Exists(name); err != nil {
		return fmt.Errorf("no se pudo consultar la copia %q: %w", name, Readable(err))
	} else if !ok {
		return fmt.Errorf("no existe la copia %q (vea `backup list`)", name)
	}
	tmp, err := os.MkdirTemp(filepath.Join(app.DataDir()), ".camellos-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	r, err := fsys.GetReader(name)
	if err != nil {
		return fmt.Errorf("no se pudo leer la copia %q: %w", name, Readable(err))
	}
	zipPath := filepath.Join(tmp, "backup.zip")
	f, err := os.Create(zipPath)
	if err == nil {
		_, err = io.Copy(f, r)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	r.Close()
	if err != nil {
		return fmt.Errorf("no se pudo descargar la copia %q: %w", name, err)
	}
	damaged := func(why string, err error) error {
		if err != nil {
			why += ": " + err.Error()
		}
		return fmt.Errorf("la copia %q está dañada (%s); los datos actuales no cambiaron", name, why)
	}
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return damaged("no es un zip válido", err)
	}
	defer zr.Close()
	var db *zip.File
	for _, zf := range zr.File {
		if zf.Name == "data.db" {
			db = zf
		}
	}
	if db == nil {
		return damaged("no contiene data.db", nil)
	}
	dbPath := filepath.Join(tmp, "data.db")
	if err := extract(db, dbPath); err != nil {
		return damaged("data.db ilegible", err)
	}
	for _, zf := range zr.File { // the WAL, if archived, belongs to the check
		if zf.Name == "data.db-wal" {
			if err := extract(zf, dbPath+"-wal"); err != nil {
				return damaged("data.db-wal ilegible", err)
			}
		}
	}
	conn, err := sql.Open("sqlite", dbPath)
	if err != nil {
		return damaged("data.db no abre", err)
	}
	defer conn.Close()
	var res string
	if err := conn.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil {
		return damaged("data.db no es una base SQLite", err)
	}
	if res != "ok" {
		return damaged("integrity_check: "+res, nil)
	}
	var n int
	if err := conn.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = '_migrations'").Scan(&n); err != nil || n == 0 {
		return damaged("data.db no es de este servicio", err)
	}
	return nil
}

func extract(zf *zip.File, path string) error {
	rc, err := zf.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, rc); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
