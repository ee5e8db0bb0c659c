package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// The CLI is tested as an operator uses it: the built binary on a data dir.
func TestAdminCreateCommand(t *testing.T) {
	bin := binary(t)
	dir := filepath.Join(t.TempDir(), "pb_data")
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append(args, "--dir", dir)...)
		cmd.Dir = t.TempDir() // not a temp-looking executable dir: no dev logging either way
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("admin", "create", "Jefa@Example.com", "clave-segura-1", "--name", "La Jefa")
	if err != nil || !strings.Contains(out, "jefa@example.com creado") {
		t.Fatalf("create on a fresh dir: %v\n%s", err, out)
	}
	out, err = run("admin", "create", "jefa@example.com", "otra-clave-22")
	if err != nil || !strings.Contains(out, "actualizado") {
		t.Fatalf("update: %v\n%s", err, out)
	}
	for _, bad := range [][]string{
		{"admin", "create", "no-es-correo", "clave-segura-1"},
		{"admin", "create", "x@example.com", "corta"},
		{"admin", "create", "x@example.com"},
	} {
		out, err := run(bad...)
		if err == nil {
			t.Fatalf("%v exited 0:\n%s", bad, out)
		}
		if !strings.Contains(out, "Error:") {
			t.Fatalf("%v: no clear message:\n%s", bad, out)
		}
	}

	// The data dir holds one ADMIN with the last password and the given name.
	app := core.NewBaseApp(core.BaseAppConfig{DataDir: dir})
	if err := app.Bootstrap(); err != nil {
		t.Fatal(err)
	}
	defer app.ResetBootstrapState()
	u, err := app.FindAuthRecordByEmail("users", "jefa@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if u.GetString("role") != users.RoleAdmin || u.GetString("name") != "La Jefa" || !users.CheckPassword(u, "otra-clave-22") {
		t.Fatalf("stored admin: role=%s name=%s", u.GetString("role"), u.GetString("name"))
	}
	if _, err := os.Stat(filepath.Join(dir, "data.db")); err != nil {
		t.Fatal(err)
	}
}
