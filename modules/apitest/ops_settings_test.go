package apitest_test

import (
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/ops"
)

// PocketBase's own settings come from our configuration at every start
// (they were "Acme", http://localhost:8090 and support@example.com), and
// its automatic backups are named after the app.
func TestPocketBaseSettingsFromConfiguration(t *testing.T) {
	t.Setenv("APP_URL", "https://camellos.example.com")
	t.Setenv("MAIL_FROM", "Camellos Soporte <hola@camellos.example.com>")
	t.Setenv("BACKUP_SCHEDULE", "0 3 * * *")
	k := testkit.New(t)
	m := k.App.Settings().Meta
	if m.AppName != "Camellos" || m.AppURL != "https://camellos.example.com" ||
		m.SenderName != "Camellos Soporte" || m.SenderAddress != "hola@camellos.example.com" {
		t.Fatalf("meta settings: %+v", m)
	}
	// A settings reload (the dashboard saving its form) is overridden again.
	k.App.Settings().Meta.AppName = "Acme"
	if err := k.App.ReloadSettings(); err != nil {
		t.Fatal(err)
	}
	if got := k.App.Settings().Meta.AppName; got != ops.AppName {
		t.Fatalf("after a reload: %q", got)
	}
	// The automatic backup's name carries the app's name, not acme.
	ran := false
	for _, j := range k.App.Cron().Jobs() {
		if j.Id() == "__pbAutoBackup__" {
			j.Run()
			ran = true
		}
	}
	if !ran {
		t.Fatal("no automatic backup job registered")
	}
	list, err := k.App.NewBackupsFilesystem()
	if err != nil {
		t.Fatal(err)
	}
	defer list.Close()
	objs, err := list.List("")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.Key)
	}
	if len(names) == 0 || !strings.HasPrefix(names[0], "@auto_pb_backup_camellos_") {
		t.Fatalf("automatic backups: %v", names)
	}
}
