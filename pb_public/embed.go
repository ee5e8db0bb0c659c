// Package pb_public embeds the web front served by the same binary.
package pb_public

import "embed"

// Files holds the static site: the pages, their styles, scripts, images and
// the service worker. Go sources are excluded from serving.
//
//go:embed *.html *.webmanifest *.txt sw.js css js img
var Files embed.FS
