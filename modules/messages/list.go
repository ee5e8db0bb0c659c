package messages

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"camellos/internal/bus"
	"camellos/internal/httpapi"
	"camellos/internal/memo"
	"camellos/internal/readmodel"
	"camellos/internal/session"
	"camellos/internal/timefmt"
	"camellos/modules/jobs"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Bounds of the conversation caches: the jobs and authors most recently
// read, not the 500,000 messages of a city.
const (
	maxCachedMessageBytes = 16 << 20
	maxCachedAuthors      = 10_000
	// maxCachedPerJob is the most messages of one job kept in memory; a
	// longer conversation is read page by page from the database.
	maxCachedPerJob = 2000
)

// messageItem is one message rendered once around its author, read live
// from the authors cache (a name changes, an erased author reads "Usuario
// eliminado").
type messageItem struct {
	camello string
	author  string
	head    []byte // {"attachments":[…],"author":
	tail    []byte // ,"body":…,"jobId":…}
}

// jobMessages is every message of one job, oldest first (created, then
// id), with the positions of each camello's thread.
type jobMessages struct {
	items    []messageItem
	byThread map[string][]int
	tooMany  bool // longer than maxCachedPerJob: not kept, read from SQL
	cost     int64
	// the order key of the last message (created as stored, then id)
	lastCreated, lastID string
}

// appended is l with rec's message added at the end (l is left as it is:
// readers may hold it), or false when rec does not sort after every
// message of l (a commit overtaken by a later one, or a message the list
// already has): then the list is dropped and built again.
func (l *jobMessages) appended(rec *core.Record, one *jobMessages) (*jobMessages, bool) {
	if l.tooMany {
		return l, true
	}
	created := rec.GetDateTime("created").String()
	if len(l.items) > 0 && !(created > l.lastCreated || (created == l.lastCreated && rec.Id > l.lastID)) {
		return nil, false
	}
	if len(l.items)+1 > maxCachedPerJob {
		return &jobMessages{tooMany: true, cost: 64}, true
	}
	n := &jobMessages{items: make([]messageItem, 0, len(l.items)+1), byThread: make(map[string][]int, len(l.byThread)+1),
		cost: l.cost + one.cost - 64, lastCreated: created, lastID: rec.Id}
	n.items = append(append(n.items, l.items...), one.items[0])
	for cam, pos := range l.byThread {
		n.byThread[cam] = pos
	}
	cam := one.items[0].camello
	n.byThread[cam] = append(slices.Clip(l.byThread[cam]), len(l.items))
	return n, true
}

type listCaches struct {
	byJob   *memo.Keyed[string, *jobMessages]
	authors *memo.Keyed[string, []byte]
}

const listCachesKey = "camellos.messages.lists"

func cachesOf(app core.App) *listCaches {
	return app.Store().GetOrSet(listCachesKey, func() any {
		return &listCaches{
			byJob:   memo.NewKeyed[string, *jobMessages](maxCachedMessageBytes, func(l *jobMessages) int64 { return l.cost }),
			authors: memo.NewKeyed[string, []byte](maxCachedAuthors, nil),
		}
	}).(*listCaches)
}

// bindListCaches drops a job's cached messages after every committed record
// write of one of them (our route, the dashboard, the generic API), an
// author after every committed write of that user (its name or role;
// erasure renames it), and everything on a commit by another process.
func bindListCaches(app core.App) {
	c := cachesOf(app)
	readmodel.Declare(app, readmodel.Projection{
		Name: "message-lists", Tables: []string{Collection},
		Bound: "16 MB of the jobs' conversations most recently read (LRU; 2,000 messages a job at most)",
		Drop:  c.byJob.DropAll,
		Check: readmodel.KeyedCheck(c.byJob, loadMessages, sameMessages),
	})
	readmodel.Declare(app, readmodel.Projection{
		Name: "message-authors", Tables: []string{users.Collection},
		Bound: "10,000 authors most recently read (LRU)",
		Drop:  c.authors.DropAll,
		Check: readmodel.KeyedCheck(c.authors, loadAuthor, bytes.Equal),
	})
	drop := func(e *core.RecordEvent) error {
		c.byJob.Drop(e.Record.GetString("job"))
		return e.Next()
	}
	// A new message is appended to its cached conversation (a busy thread
	// is not read again from the database after each message), unless it
	// does not sort last: then the conversation is dropped.
	app.OnRecordAfterCreateSuccess(Collection).BindFunc(func(e *core.RecordEvent) error {
		rec := e.Record
		one, err := renderMessages([]*core.Record{rec})
		if err != nil {
			c.byJob.Drop(rec.GetString("job"))
			return e.Next()
		}
		c.byJob.Patch(rec.GetString("job"), func(l *jobMessages) (*jobMessages, bool) { return l.appended(rec, one) })
		return e.Next()
	})
	app.OnRecordAfterUpdateSuccess(Collection).BindFunc(drop)
	app.OnRecordAfterDeleteSuccess(Collection).BindFunc(drop)
	bus.Of(app).UserChanged.BindFunc(func(e *bus.Change) error {
		c.authors.Drop(e.Record.Id)
		return e.Next()
	})
}

// jobMessagesOf returns the messages of a job from memory (app must not be
// a transaction), built by the first reader after a drop.
func jobMessagesOf(app core.App, jobID string) (*jobMessages, error) {
	l, _, err := cachesOf(app).byJob.Get(jobID, func() (*jobMessages, bool, error) { return loadMessages(app, jobID) })
	return l, err
}

func loadMessages(app core.App, jobID string) (*jobMessages, bool, error) {
	var n int
	if err := app.DB().Select("COUNT(*)").From(Collection).Where(dbx.HashExp{"job": jobID}).Row(&n); err != nil {
		return nil, false, err
	}
	if n > maxCachedPerJob {
		return &jobMessages{tooMany: true, cost: 64}, true, nil
	}
	var recs []*core.Record
	err := app.RecordQuery(Collection).Where(dbx.HashExp{"job": jobID}).OrderBy("created ASC", "id ASC").All(&recs)
	if err != nil {
		return nil, false, err
	}
	l, err := renderMessages(recs)
	return l, err == nil, err
}

// sameMessages reports whether two lists render the same (their order,
// threads and every message's parts).
func sameMessages(a, b *jobMessages) bool {
	if a.tooMany || b.tooMany || len(a.items) != len(b.items) || len(a.byThread) != len(b.byThread) {
		return a.tooMany == b.tooMany && a.tooMany
	}
	for i := range a.items {
		x, y := &a.items[i], &b.items[i]
		if x.camello != y.camello || x.author != y.author || !bytes.Equal(x.head, y.head) || !bytes.Equal(x.tail, y.tail) {
			return false
		}
	}
	for cam, pos := range a.byThread {
		if !slices.Equal(pos, b.byThread[cam]) {
			return false
		}
	}
	return true
}

// renderMessages renders each message as JSON would (the keys of its map
// in encoding/json's sorted order), but for its author.
func renderMessages(recs []*core.Record) (*jobMessages, error) {
	l := &jobMessages{items: make([]messageItem, 0, len(recs)), byThread: map[string][]int{}, cost: 64}
	for i, r := range recs {
		files := r.GetStringSlice("files")
		urls := make([]string, 0, len(files))
		for _, f := range files {
			urls = append(urls, FilesPath+r.Id+"/"+f)
		}
		att, err := json.Marshal(urls)
		if err != nil {
			return nil, err
		}
		head := append([]byte(`{"attachments":`), att...)
		head = append(head, `,"author":`...)
		tail := []byte{}
		for _, part := range []struct{ key, val string }{
			{`,"body":`, r.GetString("body")},
			{`,"camelloId":`, r.GetString("camello")},
			{`,"createdAt":`, timefmt.ISO(r.GetDateTime("created").Time())},
			{`,"id":`, r.Id},
			{`,"jobId":`, r.GetString("job")},
		} {
			raw, err := json.Marshal(part.val)
			if err != nil {
				return nil, err
			}
			tail = append(append(tail, part.key...), raw...)
		}
		tail = append(tail, '}')
		cam := r.GetString("camello")
		it := messageItem{camello: cam, author: r.GetString("author"), head: slices.Clone(head), tail: slices.Clone(tail)}
		l.items = append(l.items, it)
		l.byThread[cam] = append(l.byThread[cam], i)
		l.cost += int64(len(it.head)+len(it.tail)+len(it.camello)+len(it.author)) + 96
	}
	l.items = slices.Clip(l.items)
	if len(recs) > 0 {
		last := recs[len(recs)-1]
		l.lastCreated, l.lastID = last.GetDateTime("created").String(), last.Id
	}
	for cam, pos := range l.byThread {
		l.byThread[cam] = slices.Clip(pos)
		l.cost += int64(8*len(pos)) + 64
	}
	return l, nil
}

// authorJSON is a message's author {id, name, role} rendered, from memory.
func authorJSON(app core.App, id string) ([]byte, error) {
	raw, _, err := cachesOf(app).authors.Get(id, func() ([]byte, bool, error) { return loadAuthor(app, id) })
	return raw, err
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
// jobMessagesOf); the page and the total are cut from the cached list.
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
	l, err := jobMessagesOf(e.App, job.ID)
	if err != nil {
		return httpapi.Internal(err)
	}
	if l.tooMany {
		return messagesPage(e, job.ID, thread, p)
	}
	var pos []int
	total := len(l.items)
	if thread != "" {
		pos = l.byThread[thread]
		total = len(pos)
	}
	from := p.Offset()
	to := min(from+int64(p.PerPage), int64(total))
	buf := make([]byte, 0, 256+512*max(0, int(to-from)))
	buf = append(buf, `{"messages":[`...)
	for i := from; i < to; i++ {
		it := &l.items[i]
		if thread != "" {
			it = &l.items[pos[i]]
		}
		if i > from {
			buf = append(buf, ',')
		}
		buf = append(buf, it.head...)
		raw, err := authorJSON(e.App, it.author)
		if err != nil {
			return httpapi.Internal(err)
		}
		buf = append(buf, raw...)
		buf = append(buf, it.tail...)
	}
	buf = append(buf, `],"page":`...)
	buf = strconv.AppendInt(buf, int64(p.Page), 10)
	buf = append(buf, `,"perPage":`...)
	buf = strconv.AppendInt(buf, int64(p.PerPage), 10)
	buf = append(buf, `,"total":`...)
	buf = strconv.AppendInt(buf, int64(total), 10)
	buf = append(buf, "}\n"...)
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
func CachedLists(app core.App) (int, int64) {
	return cachesOf(app).byJob.Len()
}
