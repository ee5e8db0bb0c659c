package messages

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"camellos/internal/bus"
	"camellos/internal/httpapi"
	"camellos/internal/readmodel"
	"camellos/internal/session"
	"camellos/modules/jobs"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// maxCachedPerJob is the most messages of one job kept in memory; a longer
// conversation is read page by page from the database.
const maxCachedPerJob = 2000

// messageItem is one message rendered once around its author, read live
// (messageAuthors: a name changes, an erased author reads "Usuario
// eliminado").
type messageItem struct {
	camello, author string
	parts           [][]byte // the JSON before the author, after it
}

// jobMessages is every message of one job, oldest first (created, then id).
type jobMessages struct {
	items   []messageItem
	tooMany bool // longer than maxCachedPerJob: not kept, read from SQL
	// the order key of the last message (created as stored, then id)
	lastCreated, lastID string
}

// conversations keeps the messages of the jobs most recently read (not the
// 500,000 messages of a city), messageAuthors their authors; a new message
// is appended to its kept conversation, any other write of a message drops
// it, and a write of a user its author (its name or role; erasure renames
// it).
var (
	conversations = readmodel.Keyed[string, *jobMessages]{
		Name: "message-lists", Tables: []string{Collection},
		Bound:   "16 MB of the jobs' conversations most recently read (LRU; 2,000 messages a job at most)",
		MaxCost: 16 << 20, Load: loadMessages,
		Cost: func(l *jobMessages) int64 {
			n := int64(64)
			for _, it := range l.items {
				n += int64(len(it.parts[0])+len(it.parts[1])+len(it.camello)+len(it.author)) + 96
			}
			return n
		},
	}
	messageAuthors = readmodel.Keyed[string, []byte]{
		Name: "message-authors", Tables: []string{users.Collection}, Bound: "10,000 authors most recently read (LRU)",
		MaxCost: 10_000, Load: loadAuthor,
	}
)

func bindListCaches(app core.App) {
	conversations.Declare(app)
	messageAuthors.Declare(app)
	readmodel.OnWrite(app, Collection, func(w readmodel.Write) {
		rec, job := w.Record, w.Record.GetString("job")
		one, err := renderMessages([]*core.Record{rec})
		if w.Op != readmodel.Created || err != nil {
			conversations.Drop(w.App, job)
			return
		}
		conversations.Of(w.App).Patch(job, func(l *jobMessages) (*jobMessages, bool) { return l.appended(rec, one) })
	})
	bus.Of(app).UserChanged.BindFunc(func(e *bus.Change) error {
		messageAuthors.Drop(e.App, e.Record.Id)
		return e.Next()
	})
}

// appended is l with rec's message (one, rendered) added at the end (l is
// left as it is: readers may hold it), or false when rec does not sort
// after every message of l (a commit overtaken by a later one, or a
// message the list already has): then the list is dropped and built again.
func (l *jobMessages) appended(rec *core.Record, one *jobMessages) (*jobMessages, bool) {
	created := rec.GetDateTime("created").String()
	switch {
	case l.tooMany:
		return l, true
	case len(l.items) > 0 && !(created > l.lastCreated || (created == l.lastCreated && rec.Id > l.lastID)):
		return nil, false
	case len(l.items) >= maxCachedPerJob:
		return &jobMessages{tooMany: true}, true
	}
	return &jobMessages{items: append(slices.Clip(l.items), one.items[0]), lastCreated: created, lastID: rec.Id}, true
}

func loadMessages(app core.App, jobID string) (*jobMessages, bool, error) {
	var n int
	if err := app.DB().Select("COUNT(*)").From(Collection).Where(dbx.HashExp{"job": jobID}).Row(&n); err != nil {
		return nil, false, err
	}
	if n > maxCachedPerJob {
		return &jobMessages{tooMany: true}, true, nil
	}
	var recs []*core.Record
	err := app.RecordQuery(Collection).Where(dbx.HashExp{"job": jobID}).OrderBy("created ASC", "id ASC").All(&recs)
	if err != nil {
		return nil, false, err
	}
	l, err := renderMessages(recs)
	return l, err == nil, err
}

// renderMessages renders each message as JSON would, but for its author.
func renderMessages(recs []*core.Record) (*jobMessages, error) {
	l := &jobMessages{items: make([]messageItem, len(recs))}
	for i, r := range recs {
		parts, err := readmodel.Render(messageFields(r, readmodel.Hole))
		if err != nil {
			return nil, err
		}
		l.items[i] = messageItem{camello: r.GetString("camello"), author: r.GetString("author"), parts: parts}
		l.lastCreated, l.lastID = r.GetDateTime("created").String(), r.Id
	}
	return l, nil
}

func loadAuthor(app core.App, id string) ([]byte, bool, error) {
	a := author{ID: id}
	err := app.DB().Select("id", "name", "role").From(users.Collection).Where(dbx.HashExp{"id": id}).Limit(1).One(&a)
	found := err == nil
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	if err != nil {
		return nil, false, err
	}
	raw, err := json.Marshal(a)
	return raw, found && err == nil, err
}

// listAccess is jobAccess from the job's cached parties.
func listAccess(e *core.RequestEvent) (Access, jobs.Parties, error) {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return Access{}, jobs.Parties{}, err
	}
	job, ok, err := jobs.PartiesOf(e.App, id)
	if err != nil || !ok {
		return Access{}, job, httpapi.NotFound(jobs.MsgJobNotFound)
	}
	a, ok := accessTo(e.App, session.AuthUser(e), job)
	if !ok {
		return Access{}, job, httpapi.Forbidden(httpapi.MsgUnauthorized)
	}
	return a, job, nil
}

// messagesList handles GET /api/jobs/{id}/messages?page&perPage&camelloId:
// the caller's threads of the job, oldest first (a camello reads only its
// own; the client and admins every thread, or one with camelloId). The
// job's parties and messages come from memory (jobs.PartiesOf,
// conversations); the page and the total are cut from the kept list.
func messagesList(e *core.RequestEvent) error {
	a, job, err := listAccess(e)
	if err != nil {
		return err
	}
	p, err := httpapi.Paging(e)
	if err != nil {
		return err
	}
	thread := a.Thread
	if thread == "" {
		if c := e.Request.URL.Query().Get("camelloId"); c != "" {
			if !httpapi.ValidID(c) {
				return httpapi.FieldError("camelloId", "Identificador inválido")
			}
			thread = c
		}
	}
	l, _, err := conversations.Get(e.App, job.ID)
	if err != nil {
		return httpapi.Internal(err)
	}
	if l.tooMany {
		return messagesPage(e, job.ID, thread, p)
	}
	from, to, total := p.Offset(), p.Offset()+int64(p.PerPage), int64(0)
	buf := append(make([]byte, 0, 256+512*min(p.PerPage, len(l.items))), `{"messages":[`...)
	for _, it := range l.items {
		if thread != "" && it.camello != thread {
			continue
		}
		if total >= from && total < to {
			if total > from {
				buf = append(buf, ',')
			}
			raw, _, err := messageAuthors.Get(e.App, it.author)
			if err != nil {
				return httpapi.Internal(err)
			}
			buf = append(append(append(buf, it.parts[0]...), raw...), it.parts[1]...)
		}
		total++
	}
	buf = fmt.Appendf(buf, "],\"page\":%d,\"perPage\":%d,\"total\":%d}\n", p.Page, p.PerPage, total)
	return httpapi.WriteRendered(e, buf)
}

// messagesPage answers one page of a conversation too long to keep in
// memory, from the database.
func messagesPage(e *core.RequestEvent, jobID, thread string, p httpapi.Page) error {
	where := dbx.HashExp{"job": jobID}
	if thread != "" {
		where["camello"] = thread
	}
	total, err := e.App.CountRecords(Collection, where)
	if err != nil {
		return httpapi.Internal(err)
	}
	var recs []*core.Record
	err = e.App.RecordQuery(Collection).Where(where).OrderBy("created ASC", "id ASC").
		Offset(p.Offset()).Limit(int64(p.PerPage)).All(&recs)
	if err != nil {
		return httpapi.Internal(err)
	}
	list, err := JSON(e.App, recs)
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, p.Answer("messages", list, total))
}

// CachedLists is how many jobs' conversations are in memory and their
// approximate bytes (bench, metrics).
func CachedLists(app core.App) (int, int64) { return conversations.Of(app).Len() }
