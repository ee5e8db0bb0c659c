package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The README's "Deploy on one server" walked literally by walk/walk.sh (its
// header says what it plays and what it checks): from nothing to the
// service on HTTPS behind Caddy, with Litestream replicating and scheduled
// backups in S3, in a throw-away namespace of this machine. It needs root
// and namespaces (this kind of machine, CI included, has them); elsewhere
// it skips.
func TestDeployWalk(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the walk builds a release and installs Caddy (about 1.5 min)")
	}
	why := ""
	if os.Geteuid() != 0 {
		why = "not root"
	} else if err := exec.Command("unshare", "-m", "-n", "-p", "-f", "--mount-proc", "true").Run(); err != nil {
		why = "no namespaces here: " + err.Error()
	}
	if why != "" {
		// Root and namespaces are what the machine is, not what it has
		// installed: even under CI the walk skips (loudly) without them.
		t.Skipf("SKIPPED: the deploy walk needs root and namespaces: %s", why)
	}
	cmd := exec.Command("bash", "walk/walk.sh")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Log(out.String())
	if err != nil {
		t.Fatalf("the walk failed: %v", err)
	}
	for _, want := range []string{
		"http redirects: 308",
		"admin signs in over https",
		"quotas behind the proxy",
		"metrics behind their bearer",
		"live events stream through the proxy",
		"objects in the replica bucket",
		"scheduled backup: @auto_pb_backup_camellos_",
		"ok: from nothing to https",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the walk did not report %q", want)
		}
	}
}
