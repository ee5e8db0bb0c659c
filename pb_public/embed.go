// Package pb_public embeds the web front served by the same binary.
package pb_public

import "embed"

// Files holds the static site; Go sources are excluded from serving.
//
//go:embed *.html
var Files embed.FS
