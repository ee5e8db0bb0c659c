package ops

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set at release time by -ldflags (deploy/release.sh):
//
//	-X camellos/modules/ops.version=v1.2.0 -X camellos/modules/ops.commit=abc1234
var version, commit string

// Version is what `camellos --version` prints: the module version and the
// commit (from -ldflags, else from the build information Go records:
// the VCS revision and whether the tree was modified), and the Go version.
func Version() string {
	v, c, modified, when := version, commit, false, ""
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if c == "" {
					c = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			case "vcs.time":
				when = s.Value
			}
		}
	}
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	if c == "" {
		c = "desconocido"
	} else if len(c) > 12 {
		c = c[:12]
	}
	if modified {
		c += "-modificado"
	}
	out := fmt.Sprintf("camellos %s (commit %s", v, c)
	if when != "" {
		out += ", " + when
	}
	return out + ", " + runtime.Version() + ")"
}
