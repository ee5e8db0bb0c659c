package messages

import (
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"

	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/imagecheck"
	"camellos/internal/records"
	"camellos/internal/session"
	"camellos/internal/writer"
	"camellos/modules/camellos"
	"camellos/modules/events"
	"camellos/modules/jobs"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/filesystem"
)

// jobAccess loads the path's job and the caller's access to its
// conversation: 400 malformed id, 404 unknown job, 403 not a participant.
func jobAccess(e *core.RequestEvent) (Access, error) {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return Access{}, err
	}
	job, err := e.App.FindRecordById(jobs.Collection, id)
	if err != nil {
		return Access{}, httpapi.NotFound(jobs.MsgJobNotFound)
	}
	a, ok := AccessOf(e.App, session.AuthUser(e), job)
	if !ok {
		return Access{}, httpapi.Forbidden(httpapi.MsgUnauthorized)
	}
	return a, nil
}

// postInput is a message as sent: JSON {body, toCamelloId?} or multipart
// body, toCamelloId and up to 3 files.
type postInput struct {
	Body        *string `json:"body"`
	ToCamelloID *string `json:"toCamelloId"`
	files       []*filesystem.File
}

// readPost reads and checks a message body of either content type.
func readPost(e *core.RequestEvent) (*postInput, error) {
	in := &postInput{}
	if !httpapi.IsMultipart(e.Request) {
		if err := httpapi.ReadJSON(e, in); err != nil {
			return nil, err
		}
		return in, nil
	}
	if err := e.Request.ParseMultipartForm(1 << 20); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, httpapi.ToError(err)
		}
		return nil, httpapi.BadRequest(MsgInvalidMultipart)
	}
	form := e.Request.MultipartForm
	defer form.RemoveAll()
	fields := map[string]json.RawMessage{}
	for _, name := range []string{"body", "toCamelloId"} {
		if vals := form.Value[name]; len(vals) > 0 {
			fields[name], _ = json.Marshal(vals[0])
		}
	}
	raw, _ := json.Marshal(fields)
	if err := httpapi.DecodeObject(raw, in); err != nil {
		return nil, err
	}
	headers := form.File["files"]
	if len(headers) > MaxFiles {
		return nil, httpapi.FieldError("files", MsgTooManyFiles)
	}
	for _, fh := range headers {
		f, msg, err := readImage(fh)
		if err != nil {
			return nil, httpapi.Internal(err)
		}
		if msg != "" {
			return nil, httpapi.FieldError("files", msg)
		}
		in.files = append(in.files, f)
	}
	return in, nil
}

// readImage checks one uploaded photo by the message photos' upload policy
// (internal/imagecheck: type by content, ≤ 5 MiB, dimensions read from the
// header before anything decodes); msg says what is wrong, "" when it is
// acceptable.
func readImage(fh *multipart.FileHeader) (*filesystem.File, string, error) {
	policy, _ := imagecheck.For(Collection, "files")
	if fh.Size > policy.MaxBytes {
		return nil, MsgImageTooLarge, nil
	}
	src, err := fh.Open()
	if err != nil {
		return nil, "", err
	}
	defer src.Close()
	data, err := io.ReadAll(io.LimitReader(src, policy.MaxBytes+1))
	if err != nil {
		return nil, "", err
	}
	info, err := policy.CheckBytes(data)
	if v := imagecheck.AsViolation(err); v != nil {
		switch v.Code {
		case imagecheck.CodeTooLarge:
			return nil, MsgImageTooLarge, nil
		case imagecheck.CodeType, imagecheck.CodeInvalid, imagecheck.CodeEmpty:
			return nil, MsgBadImage, nil
		}
		return nil, v.Message, nil
	} else if err != nil {
		return nil, "", err
	}
	f, err := filesystem.NewFileFromBytes(data, "foto"+info.Ext)
	if err != nil {
		return nil, "", err
	}
	return f, "", nil
}

// messagePost handles POST /api/jobs/{id}/messages → 201 {message}. The
// caller's access is checked on the job's parties (from memory); Post
// checks the job again in its transaction.
func messagePost(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	job, ok, err := jobs.PartiesOf(e.App, id)
	if err != nil || !ok {
		return httpapi.NotFound(jobs.MsgJobNotFound)
	}
	a, ok := accessTo(e.App, session.AuthUser(e), job)
	if !ok {
		return httpapi.Forbidden(httpapi.MsgUnauthorized)
	}
	if a.Admin && !a.Client {
		return httpapi.Forbidden(MsgAdminReadOnly)
	}
	if job.Status == jobs.StatusCancelled || job.Status == jobs.StatusCompleted { // closed, or closing: its date says
		rec, err := e.App.FindRecordById(jobs.Collection, id)
		if err != nil {
			return httpapi.NotFound(jobs.MsgJobNotFound)
		}
		if err := writeConflict(rec, clock.Now(e.App)); err != nil {
			return err
		}
	}
	in, err := readPost(e)
	if err != nil {
		return err
	}
	body := ""
	if in.Body != nil {
		body = strings.TrimSpace(*in.Body)
	}
	v := httpapi.NewValidation()
	if body == "" && len(in.files) == 0 {
		v.Add("body", "Es obligatorio (o envía una foto)")
	}
	httpapi.CheckLength(v, "body", body, 0, MaxBodyLen)
	thread := a.Thread
	if a.Client {
		to := ""
		if in.ToCamelloID != nil {
			to = strings.TrimSpace(*in.ToCamelloID)
		}
		switch {
		case to == "" && job.Provider != "":
			thread = job.Provider
		case to == "":
			v.Add("toCamelloId", "Es obligatorio: indica a qué camello respondes")
		case !httpapi.ValidID(to):
			v.Add("toCamelloId", "Identificador inválido")
		case !participatesIn(e.App, job, to):
			v.Add("toCamelloId", MsgNotParticipant)
		default:
			thread = to
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	msg, err := Post(e.App, job.ID, thread, session.AuthUser(e), body, in.files)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, map[string]any{"message": msg})
}

// posted is what Post read and checked before saving a message: the
// message's validate hook takes them instead of reading them again.
type posted struct{ job, cam, author *core.Record }

var inHand records.InHand[posted]

// Post writes a message of author in the job's thread of camelloID, in one
// transaction with the recipient's MESSAGE notification; both parties'
// open event streams get it once committed. 409 when the conversation is
// closed.
func Post(app core.App, jobID, camelloID string, author *core.Record, body string, files []*filesystem.File) (map[string]any, error) {
	var out map[string]any
	err := writer.Transaction(app, func(txApp core.App) error {
		job, err := txApp.FindRecordById(jobs.Collection, jobID)
		if err != nil {
			return httpapi.NotFound(jobs.MsgJobNotFound)
		}
		if err := writeConflict(job, clock.Now(txApp)); err != nil {
			return err
		}
		cam, err := txApp.FindRecordById(camellos.Collection, camelloID)
		if err != nil {
			return httpapi.FieldError("toCamelloId", MsgNotParticipant)
		}
		if status, msg := writeRefusalOf(txApp, job, cam, author.Id); msg != "" {
			return httpapi.NewError(status, msg)
		}
		col, err := txApp.FindCachedCollectionByNameOrId(Collection)
		if err != nil {
			return err
		}
		rec := core.NewRecord(col)
		rec.Set("job", job.Id)
		rec.Set("camello", cam.Id)
		rec.Set("author", author.Id)
		rec.Set("body", body)
		if len(files) > 0 {
			rec.Set("files", files)
		}
		err = func() error { // the hook takes the job, camello and author checked above
			defer inHand.Hold(rec, posted{job: job, cam: cam, author: author})()
			return txApp.Save(rec)
		}()
		if err != nil {
			return err
		}
		out = messageFields(rec, authorOf(author)) // the author in hand, not read again
		recipient := jobs.Wrap(job).ClientID()
		if author.Id == recipient {
			recipient = camellos.Wrap(cam).UserID()
		}
		if err := notify(txApp, recipient, author, job, rec, body); err != nil {
			return err
		}
		events.PublishAfterCommit(txApp, events.Event{Name: events.Message, Data: out}, author.Id, recipient)
		return nil
	})
	return out, err
}

// fileName is the shape of a stored attachment name (no paths).
var fileName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,150}\.(jpg|png|webp)$`)

var fileTypes = map[string]string{".jpg": "image/jpeg", ".png": "image/png", ".webp": "image/webp"}

// messageFileGet handles GET /api/messages/files/{id}/{file}: an attachment,
// only to those who can read its message (anyone else 404, as an unknown
// file), as an image with nosniff, the sandbox CSP and private caching.
func messageFileGet(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	name := e.Request.PathValue("file")
	if !fileName.MatchString(name) {
		return httpapi.NotFound(MsgFileNotFound)
	}
	rec, err := e.App.FindRecordById(Collection, id)
	if err != nil || !contains(rec.GetStringSlice("files"), name) {
		return httpapi.NotFound(MsgFileNotFound)
	}
	if !CanReadFile(e.App, session.AuthUser(e), rec) {
		return httpapi.NotFound(MsgFileNotFound)
	}
	fsys, err := e.App.NewFilesystem()
	if err != nil {
		return httpapi.Internal(err)
	}
	defer fsys.Close()
	// A stored photo that breaks the upload policy (one stored before it,
	// awaiting quarantine) is never served.
	key := rec.BaseFilesPath() + "/" + name
	policy, _ := imagecheck.For(Collection, "files")
	if _, err := imagecheck.CheckStoredCached(e.App, fsys, key, policy); err != nil {
		return httpapi.NotFound(MsgFileNotFound)
	}
	h := e.Response.Header()
	h.Set("Content-Type", fileTypes[filepath.Ext(name)])
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Disposition", "inline")
	h.Set("Cache-Control", "private, max-age=3600")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	if err := fsys.Serve(e.Response, e.Request, key, name); err != nil {
		for _, k := range []string{"Content-Type", "Content-Disposition", "Cache-Control"} {
			h.Del(k)
		}
		return httpapi.NotFound(MsgFileNotFound)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
