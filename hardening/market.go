package hardening

import (
	"bytes"
	"image"
	"image/png"
	"testing"
	"time"

	"github.com/pocketbase/pocketbase/tools/filesystem"
)

// StreamQuery is added to every call of an event-stream route, so that the
// suites (which read whole answers) get a stream that ends after its replay.
var StreamQuery = map[string]string{"GET /api/events": "once=true"}

// marketFixtures adds the marketplace's fixtures: an open job of the client
// with a PENDIENTE quote of the owning camello, and a message with a photo
// of that camello on the assigned job.
func (w *World) marketFixtures(t testing.TB, serviceID, camelloID string) {
	t.Helper()
	k := w.K
	client := w.Users[Client].Id
	job, err := TryCreate(k.App, "jobs", map[string]any{"title": "Cambiar la llave", "status": "PENDIENTE", "source": "EXPLORE",
		"city": "Bogotá", "service": serviceID, "client": client})
	if err != nil {
		t.Logf("fixture quote job: %v", err)
		return
	}
	w.QuoteJobID = job.Id
	if q, err := TryCreate(k.App, "quotes", map[string]any{"job": job.Id, "camello": camelloID, "amount": 60000, "currency": "COP",
		"message": "Puedo mañana", "status": "PENDIENTE", "expiresAt": time.Now().Add(7 * 24 * time.Hour)}); err == nil {
		w.QuoteID = q.Id
	} else {
		t.Logf("fixture quote: %v", err)
	}
	if w.JobID == "" {
		return
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 2, 2)))
	f, err := filesystem.NewFileFromBytes(buf.Bytes(), "foto.png")
	if err != nil {
		t.Fatal(err)
	}
	m, err := TryCreate(k.App, "messages", map[string]any{"job": w.JobID, "camello": camelloID, "author": w.Users[Camello].Id,
		"body": "Esta es la fuga", "files": []*filesystem.File{f}})
	if err != nil {
		t.Logf("fixture message: %v", err)
		return
	}
	w.MessageID = m.Id
	if names := m.GetStringSlice("files"); len(names) > 0 {
		w.MessageFile = names[0]
	}
}
