// Package deploy holds the deploy kit (container image, systemd units, the
// Caddy site, the release script). Its tests check their structure (no
// container engine or systemd runs where the tests run) and walk the
// README's deploy section for real (walk_test.go: Caddy from Debian,
// Litestream, S3 on versitygw, the units started from their files).
package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The image: multi-stage, a static build with the release flags, a
// non-root user, the data on a volume, a health check that needs no shell,
// and `serve` on that volume.
func TestDockerfile(t *testing.T) {
	d := read(t, "Dockerfile")
	var froms, users []string
	instr := map[string]string{}
	for _, line := range strings.Split(strings.ReplaceAll(d, "\\\n", " "), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch strings.ToUpper(f[0]) {
		case "FROM":
			froms = append(froms, line)
		case "USER":
			users = append(users, f[1])
		}
		instr[strings.ToUpper(f[0])] += line + "\n"
	}
	if len(froms) < 2 || !strings.Contains(froms[0], " AS build") || !strings.Contains(instr["COPY"], "--from=build") {
		t.Errorf("not a multi-stage build: %v", froms)
	}
	if len(users) == 0 {
		t.Fatal("no USER: the image runs as root")
	}
	if u := users[len(users)-1]; u == "root" || u == "0" || strings.HasPrefix(u, "0:") {
		t.Errorf("runs as %s", u)
	}
	if !strings.Contains(instr["VOLUME"], "/data") || !strings.Contains(instr["CMD"], `"--dir", "/data"`) {
		t.Error("the data dir is not the volume")
	}
	if !strings.Contains(instr["HEALTHCHECK"], `"healthcheck"`) || strings.Contains(instr["HEALTHCHECK"], "curl") {
		t.Errorf("health check: %q", instr["HEALTHCHECK"])
	}
	if !strings.Contains(instr["ENV"], "CGO_ENABLED=0") || !strings.Contains(instr["RUN"], "-trimpath") ||
		!strings.Contains(instr["RUN"], "camellos/modules/ops.version=") || !strings.Contains(instr["RUN"], "camellos/modules/ops.commit=") {
		t.Error("the build differs from deploy/release.sh")
	}
	if !strings.Contains(instr["EXPOSE"], "8090") || !strings.Contains(instr["CMD"], "0.0.0.0:8090") {
		t.Error("the port is not exposed")
	}
	if !strings.Contains(froms[0], "golang:1.26") {
		t.Errorf("the build stage is not Go 1.26: %s", froms[0])
	}
}

// unit parses a systemd unit into key → values.
func unit(t *testing.T, name string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	section := ""
	for _, line := range strings.Split(read(t, name), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") {
			section = strings.Trim(line, "[]")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: not key=value: %q", name, line)
		}
		out[section+"."+k] = append(out[section+"."+k], v)
	}
	return out
}

// The units run as the service user with the hardening options, only the
// data dir writable; `systemd-analyze verify` checks them where it exists.
func TestSystemdUnits(t *testing.T) {
	for _, name := range []string{"camellos.service", "camellos-push.service", "litestream.service"} {
		u := unit(t, name)
		for k, want := range map[string]string{
			"Service.User": "camellos", "Service.NoNewPrivileges": "yes", "Service.ProtectSystem": "strict",
			"Service.ReadWritePaths": "/var/lib/camellos", "Service.ProtectHome": "yes", "Service.PrivateTmp": "yes",
			"Service.PrivateDevices": "yes", "Service.CapabilityBoundingSet": "", "Service.RestrictNamespaces": "yes",
			"Service.MemoryDenyWriteExecute": "yes", "Service.LockPersonality": "yes", "Service.UMask": "0077",
			"Service.EnvironmentFile": "/etc/camellos/camellos.env", "Install.WantedBy": "multi-user.target",
		} {
			if v := u[k]; len(v) == 0 || v[0] != want {
				t.Errorf("%s: %s = %v, want %q", name, k, v, want)
			}
		}
		if len(u["Service.SystemCallFilter"]) == 0 || len(u["Service.RestrictAddressFamilies"]) == 0 {
			t.Errorf("%s: no system call or address family filter", name)
		}
	}
	svc := unit(t, "camellos.service")
	if e := svc["Service.ExecStart"]; len(e) != 1 || !strings.Contains(e[0], "serve --http 127.0.0.1:8090 --dir /var/lib/camellos/pb_data") {
		t.Errorf("ExecStart: %v", e)
	}
	if e := unit(t, "camellos-push.service")["Service.ExecStart"]; len(e) != 1 || !strings.Contains(e[0], "push work --dir /var/lib/camellos/pb_data") {
		t.Errorf("push worker ExecStart: %v", e)
	}
	ls := unit(t, "litestream.service")
	if e := ls["Service.ExecStart"]; len(e) != 1 || !strings.Contains(e[0], "litestream replicate -config /etc/camellos/litestream.yml") {
		t.Errorf("litestream ExecStart: %v", e)
	}
	if !strings.Contains(strings.Join(ls["Service.Environment"], " "), "CAMELLOS_DATA_DIR=/var/lib/camellos/pb_data") {
		t.Error("Litestream does not replicate the service's data dir")
	}
	if sa, err := exec.LookPath("systemd-analyze"); err == nil {
		for _, name := range []string{"camellos.service", "camellos-push.service", "litestream.service"} {
			// The binaries are not installed here: that complaint is expected;
			// any other (an unknown option, a bad value) fails.
			out, _ := exec.Command(sa, "verify", name).CombinedOutput()
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if line != "" && !strings.Contains(line, "is not executable") && !strings.Contains(line, "/etc/camellos") {
					t.Errorf("systemd-analyze verify %s: %s", name, line)
				}
			}
		}
	}
}

// The Caddy site: TLS for the domain, the service on 127.0.0.1:8090, live
// events never buffered (and not compressed), balanced braces.
func TestCaddyfile(t *testing.T) {
	c := read(t, "Caddyfile")
	if strings.Count(c, "{")-strings.Count(c, "{$") != strings.Count(c, "}")-strings.Count(c, "{$") {
		t.Fatal("unbalanced braces")
	}
	ev := regexp.MustCompile(`(?s)handle /api/events \{\s*reverse_proxy 127\.0\.0\.1:8090 \{\s*flush_interval -1\s*\}\s*\}`)
	if !ev.MatchString(c) {
		t.Error("/api/events is not proxied with flush_interval -1 in its own handle block")
	}
	if i, j := strings.Index(c, "handle /api/events"), strings.Index(c, "encode"); i < 0 || j < i {
		t.Error("compression must not apply to /api/events")
	}
	if !strings.Contains(c, "{$CAMELLOS_DOMAIN} {") {
		t.Error("the site is not the domain (automatic HTTPS)")
	}
}

// Every configuration variable is in the README's table and in the
// environment example, and the example names nothing else (but Litestream's).
func TestEnvExampleMatchesTheConfiguration(t *testing.T) {
	cfg := read(t, filepath.Join("..", "internal", "config", "config.go"))
	vars := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?:get|str|num|flag)\("([A-Z][A-Z0-9_]+)"`).FindAllStringSubmatch(cfg, -1) {
		vars[m[1]] = true
	}
	delete(vars, "GOMEMLIMIT") // the Go runtime's own
	if len(vars) < 25 {
		t.Fatalf("found only %d variables in internal/config", len(vars))
	}
	readme := read(t, filepath.Join("..", "README.md"))
	env := read(t, "camellos.env.example")
	inEnv := map[string]bool{}
	for _, line := range strings.Split(env, "\n") {
		if k, _, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			inEnv[k] = true
		}
	}
	for v := range vars {
		if !strings.Contains(readme, "`"+v+"`") {
			t.Errorf("%s is not in the README's configuration table", v)
		}
		if !inEnv[v] {
			t.Errorf("%s is not in deploy/camellos.env.example", v)
		}
	}
	for v := range inEnv {
		if !vars[v] && v != "LITESTREAM_BUCKET" {
			t.Errorf("deploy/camellos.env.example sets %s, which the service does not read", v)
		}
	}
}
