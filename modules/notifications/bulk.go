package notifications

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/writer"
	"camellos/modules/users"
	"camellos/modules/whatsapp"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Addressed is one message for one user, an item of NotifyMany.
type Addressed struct {
	UserID string
	Message
}

// insertChunk is how many inbox rows one multi-row INSERT writes (7 bound
// values a row). The SQLite driver looks each bound value up linearly, so
// a statement's binding cost grows with the square of its size: 50 rows
// measured faster than 100–400 and far faster than one row a statement.
const insertChunk = 50

// maxDataBytes bounds the data field, as the notifications collection
// declares it. The text bounds are the schema's (internal/bounds).
const maxDataBytes = 16 << 10

// NotifyMany tells many users about events with the semantics of Notify
// (each user's preferences honoured; critical kinds always reach the
// inbox; push and e-mail only after the write commits), at the cost of a
// few queries instead of a full record save per notification:
//
//   - the users, their preferences and their push subscriptions are read
//     with one query per table (an unknown user fails the whole call,
//     like Notify's relation check);
//   - the inbox rows are written with multi-row INSERTs through app.DB();
//   - deliveries are queued only for users who can receive something (a
//     push subscription with push on, or e-mail on while SMTP is
//     enabled); they carry those subscriptions and preferences (as of
//     this write) to the workers, which then read nothing per user.
//
// app may be a transaction: the rows commit or roll back with it, and the
// deliveries are queued only once it commits. Without a transaction the
// call runs in its own. The raw INSERTs bypass the record hooks, so the
// notifications after-create hook does not fire for these rows; delivery
// is queued here instead, never dropped when the queue is full (see
// dispatcher.enqueue).
//
// On error the caller rolls its transaction back (RunInTransaction does
// when the error is returned): the INSERTs are OR FAIL, which spares
// SQLite a statement journal, so a failing statement keeps its earlier
// rows until the rollback.
func NotifyMany(app core.App, items []Addressed) error {
	return NotifyManyKnown(app, items, Recipients{})
}

// Recipients are users' preferences, push subscriptions and confirmed
// WhatsApp numbers as ReadRecipients found them, for NotifyManyKnown, with
// the users table's change counter as it was before they were read.
type Recipients struct {
	users map[string]*recipient
	// usersChanges is the users table's change counter (change_counters,
	// internal/readmodel: every INSERT, UPDATE and DELETE of a users row,
	// by any process, adds one in its own transaction) read before users,
	// when counted.
	usersChanges int64
	counted      bool
}

// ReadRecipients reads what deliveries need of users (distinct ids) with
// one query per table (readRecipients), outside any transaction: a caller
// preparing its next batch while the writer is busy with the last one
// (the reminder sweep) hands it to NotifyManyKnown. A user that does not exist is left out (the write
// then reads it again and fails like NotifyMany).
func ReadRecipients(app core.App, userIDs []string) (Recipients, error) {
	n, err := usersChanges(app)
	if err != nil {
		return Recipients{}, err
	}
	users, err := readRecipients(app, userIDs)
	if err != nil {
		return Recipients{}, err
	}
	return Recipients{users: users, usersChanges: n, counted: n >= 0}, nil
}

// usersChanges reads the users table's change counter (-1 when the
// counters are not installed).
func usersChanges(app core.App) (int64, error) {
	var n []int64
	err := app.DB().NewQuery("SELECT n FROM change_counters WHERE tbl = {:t}").Bind(dbx.Params{"t": users.Collection}).Column(&n)
	if err != nil || len(n) == 0 {
		if err != nil && strings.Contains(err.Error(), "no such table") {
			err = nil
		}
		return -1, err
	}
	return n[0], nil
}

// NotifyManyKnown is NotifyMany with the recipients already read (known,
// by ReadRecipients; the zero Recipients reads them all): users missing
// from known are read in the write. Whether a known user was disabled
// (erased) meanwhile is read again in the write, unless the users table's
// change counter shows that no users row changed since known was read. A
// preference changed between that read and the write takes effect from
// the next notification, as if it had changed just after it.
func NotifyManyKnown(app core.App, items []Addressed, known Recipients) error {
	if len(items) == 0 {
		return nil
	}
	p, err := Prepare(items, known)
	if err != nil {
		return err
	}
	return NotifyPrepared(app, p, nil)
}

// Prepared is a batch of notifications checked against the collection's
// bounds and rendered as stored (Prepare) ahead of its write, with the
// recipients known for it: NotifyPrepared then leaves the writer only the
// write. The reminder sweep prepares batch k+1 while batch k is written.
type Prepared struct {
	items []Addressed
	datas []string // each item's data field as stored
	users []string // the distinct users of items
	known Recipients
}

// Prepare checks items (what a record save would: the user id's form, the
// kind, the texts' and the data's bounds) and renders their data fields,
// outside any transaction; known is as for NotifyManyKnown.
func Prepare(items []Addressed, known Recipients) (*Prepared, error) {
	p := &Prepared{items: items, datas: make([]string, len(items)), known: known}
	seen := make(map[string]bool, len(items))
	var lastData uintptr // items often share one Data map (e.g. both parties of an appointment)
	for i := range items {
		if err := validateAddressed(&items[i]); err != nil {
			return nil, err
		}
		if !seen[items[i].UserID] {
			seen[items[i].UserID] = true
			p.users = append(p.users, items[i].UserID)
		}
		if ptr := reflect.ValueOf(items[i].Data).Pointer(); i > 0 && ptr != 0 && ptr == lastData {
			p.datas[i] = p.datas[i-1]
		} else {
			raw, err := dataJSON(items[i].Data)
			if err != nil {
				return nil, err
			}
			p.datas[i], lastData = raw, ptr
		}
	}
	return p, nil
}

// NotifyPrepared writes the prepared notifications whose keep is true
// (keep nil: all of them) with the semantics of NotifyManyKnown.
func NotifyPrepared(app core.App, p *Prepared, keep []bool) error {
	if app.TxInfo() == nil {
		return writer.Transaction(app, func(txApp core.App) error {
			return NotifyPrepared(txApp, p, keep)
		})
	}
	items, datas, users := p.items, p.datas, p.users
	if keep != nil {
		items, datas, users = nil, nil, nil
		seen := make(map[string]bool, len(p.users))
		for i, k := range keep {
			if !k {
				continue
			}
			items, datas = append(items, p.items[i]), append(datas, p.datas[i])
			if u := p.items[i].UserID; !seen[u] {
				seen[u] = true
				users = append(users, u)
			}
		}
	}
	if len(items) == 0 {
		return nil
	}
	recips, err := knownRecipients(app, users, p.known)
	if err != nil {
		return err
	}
	// An erased (or disabled) user gets nothing: checked in this
	// transaction, so a writer that read the user before an erasure (a
	// broadcast's batch, the sweep's next batch) writes nothing after it.
	if items, datas, err = dropDisabled(app, items, datas, users, recips, p.known); err != nil || len(items) == 0 {
		return err
	}

	created := types.NowDateTime().String()
	ids := make([]string, len(items))
	inbox := make([]int, 0, len(items)) // indexes of the items stored in the inbox
	taken := make(map[string]bool, len(items))
	for i, it := range items {
		if recips[it.UserID].prefs.allows(it.Kind, ChannelInApp) {
			for ids[i] == "" || taken[ids[i]] {
				ids[i] = newOrderedID(time.Now())
			}
			taken[ids[i]] = true
			inbox = append(inbox, i)
		}
	}
	if err := insertInbox(app, items, datas, ids, inbox, created); err != nil {
		return err
	}
	emitInboxMany(app, items, ids, inbox, created)

	jobs := deliverable(app, items, ids, recips)
	if outboxMode(app) && len(jobs) > 0 { // the worker process sends the pushes
		if jobs, err = outboxPushes(app, jobs); err != nil {
			return err
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	app.TxInfo().OnComplete(func(txErr error) error {
		if txErr == nil {
			d := dispatcherOf(app)
			for _, j := range jobs {
				d.enqueue(j)
			}
		}
		return nil
	})
	return nil
}

// dropDisabled returns items (and their datas) without those of disabled users (an erased
// account is disabled), as this transaction sees them: the users read in it
// (recips) say so themselves; those known from a read before it are read
// again, with one query, unless the users change counter has not moved
// since that read (then known says what a new read would). items is left as it is when nobody is disabled.
func dropDisabled(app core.App, items []Addressed, datas, userIDs []string, recips map[string]*recipient, known Recipients) ([]Addressed, []string, error) {
	disabled := map[string]bool{}
	var stale []string
	for _, u := range userIDs {
		r := recips[u]
		switch {
		case known.users[u] != nil:
			stale = append(stale, u)
		case r != nil && r.disabled:
			disabled[u] = true
		}
	}
	if len(stale) > 0 && known.counted {
		// No users row changed since before the known ones were read:
		// what they say is what this transaction would read again.
		n, err := usersChanges(app)
		if err != nil {
			return nil, nil, err
		}
		if n == known.usersChanges {
			for _, u := range stale {
				if known.users[u].disabled {
					disabled[u] = true
				}
			}
			stale = nil
		}
	}
	if len(stale) > 0 {
		ids, err := disabledAmong(app, stale)
		if err != nil {
			return nil, nil, err
		}
		for _, u := range ids {
			disabled[u] = true
		}
	}
	if len(disabled) == 0 {
		return items, datas, nil
	}
	kept := make([]Addressed, 0, len(items))
	keptDatas := make([]string, 0, len(items))
	for i, it := range items {
		if !disabled[it.UserID] {
			kept = append(kept, it)
			keptDatas = append(keptDatas, datas[i])
		}
	}
	return kept, keptDatas, nil
}

// disabledAmong returns the ids among ids (distinct) of disabled users,
// with one query on idx_users_disabled, which holds only the disabled users
// (the recipients' own read of users; a call into the users package here
// would climb back up the walk of a sign-up).
func disabledAmong(app core.App, ids []string) ([]string, error) {
	out := []string{}
	err := app.DB().NewQuery("SELECT d.id FROM json_each({:ids}) j CROSS JOIN " + users.Collection +
		" d INDEXED BY idx_users_disabled ON d.id = j.value WHERE d.disabled = TRUE").
		Bind(dbx.Params{"ids": idsParam(ids)}).Column(&out)
	return out, err
}

// validateAddressed checks an item against the bounds of the
// notifications collection (what a record save would check).
func validateAddressed(it *Addressed) error {
	if !httpapi.ValidID(it.UserID) {
		return httpapi.FieldRuleError("user", "Usuario inválido")
	}
	if !isKind(it.Kind) {
		return errUnknownKind(it.Kind)
	}
	if n := utf8.RuneCountInString(it.Title); n < bounds.NotificationTitleMin || n > bounds.NotificationTitleMax {
		return httpapi.FieldRuleError("title", fmt.Sprintf("Debe tener entre %d y %d caracteres", bounds.NotificationTitleMin, bounds.NotificationTitleMax))
	}
	if utf8.RuneCountInString(it.Body) > bounds.NotificationBodyMax {
		return httpapi.FieldRuleError("body", fmt.Sprintf("Debe tener como máximo %d caracteres", bounds.NotificationBodyMax))
	}
	if utf8.RuneCountInString(it.URL) > bounds.URLMax {
		return httpapi.FieldRuleError("url", fmt.Sprintf("Debe tener como máximo %d caracteres", bounds.URLMax))
	}
	return nil
}

// dataJSON is the data field as stored: JSON text, {} when empty.
func dataJSON(data map[string]any) (string, error) {
	if data == nil {
		return "{}", nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return "", httpapi.FieldRuleError("data", "Datos inválidos")
	}
	if len(raw) > maxDataBytes {
		return "", httpapi.FieldRuleError("data", "Demasiado grande")
	}
	return string(raw), nil
}

// idsParam is a list of ids as one JSON array parameter, read in SQL with
// json_each so a query takes any number of ids with one bound value.
func idsParam(ids []string) string {
	raw, _ := json.Marshal(ids)
	return string(raw)
}

// knownRecipients is loadRecipients of the users (distinct ids) missing
// from known, merged with known's.
func knownRecipients(app core.App, userIDs []string, known Recipients) (map[string]*recipient, error) {
	if len(known.users) == 0 {
		return loadRecipients(app, userIDs)
	}
	var missing []string
	for _, u := range userIDs {
		if known.users[u] == nil {
			missing = append(missing, u)
		}
	}
	if len(missing) == 0 {
		return known.users, nil
	}
	more, err := loadRecipients(app, missing)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*recipient, len(userIDs))
	for _, u := range userIDs {
		if r := known.users[u]; r != nil {
			out[u] = r
		} else {
			out[u] = more[u]
		}
	}
	return out, nil
}

// loadRecipients reads the preferences and push subscriptions (oldest
// first) of users (distinct ids) with readRecipients, failing like a relation
// check when one of them does not exist.
func loadRecipients(app core.App, userIDs []string) (map[string]*recipient, error) {
	out, err := readRecipients(app, userIDs)
	if err != nil {
		return nil, err
	}
	if len(out) != len(userIDs) {
		return nil, httpapi.FieldRuleError("user", "Usuario inexistente")
	}
	return out, nil
}

// readRecipients reads the recipients among userIDs (distinct) that exist,
// with one query driven by the list of ids (json_each joined, not an IN
// list: SQLite would first copy the list into a temporary index): whether
// each exists (the users id index alone), whether it is disabled
// (idx_users_disabled, which holds only those), its preferences, push
// subscriptions and confirmed WhatsApp number (each table's user index).
// No users row is read: a batch of 10,000 recipients of the reminder sweep
// read 10,000 rows of a table of a million users, scattered over its
// pages.
func readRecipients(app core.App, userIDs []string) (map[string]*recipient, error) {
	var rows []struct {
		ID       string `db:"id"`
		Prefs    string `db:"prefs"`
		SubID    string `db:"subId"`
		Endpoint string `db:"endpoint"`
		P256dh   string `db:"p256dh"`
		Auth     string `db:"auth"`
		Created  string `db:"created"`
		Phone    string `db:"phone"`
		Disabled bool   `db:"disabled"`
	}
	err := app.DB().NewQuery("SELECT u.id AS id, " +
		"EXISTS (SELECT 1 FROM " + users.Collection + " d INDEXED BY idx_users_disabled WHERE d.disabled = TRUE AND d.id = u.id) AS disabled, " +
		"COALESCE(p.prefs, '') AS prefs, COALESCE(s.id, '') AS subId, " +
		"COALESCE(s.endpoint, '') AS endpoint, COALESCE(s.p256dh, '') AS p256dh, COALESCE(s.auth, '') AS auth, " +
		"COALESCE(s.created, '') AS created, COALESCE(w.phone, '') AS phone FROM json_each({:ids}) j " +
		"CROSS JOIN " + users.Collection + " u ON u.id = j.value " +
		"LEFT JOIN " + colPreferences + " p ON p.user = u.id " +
		"LEFT JOIN " + colSubscriptions + " s ON s.user = u.id " +
		"LEFT JOIN " + whatsapp.ContactsCollection + " w ON w.user = u.id AND w.status = {:confirmed}").
		Bind(dbx.Params{"ids": idsParam(userIDs), "confirmed": whatsapp.ContactConfirmed}).All(&rows)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*recipient, len(userIDs))
	created := map[string]string{} // of each subscription, to order a user's
	for _, r := range rows {
		rc := out[r.ID]
		if rc == nil {
			rc = &recipient{prefs: Preferences{}, phone: r.Phone, disabled: r.Disabled}
			if r.Prefs != "" && r.Prefs != "null" {
				if json.Unmarshal([]byte(r.Prefs), &rc.prefs) != nil || rc.prefs == nil {
					rc.prefs = Preferences{} // unreadable: defaults
				}
			}
			out[r.ID] = rc
		}
		if r.SubID != "" {
			rc.subs = append(rc.subs, subscription{ID: r.SubID, Endpoint: r.Endpoint, P256dh: r.P256dh, Auth: r.Auth})
			created[r.SubID] = r.Created
		}
	}
	for _, rc := range out {
		if len(rc.subs) > 1 {
			sort.Slice(rc.subs, func(i, j int) bool {
				a, b := rc.subs[i], rc.subs[j]
				if created[a.ID] != created[b.ID] {
					return created[a.ID] < created[b.ID]
				}
				return a.ID < b.ID
			})
		}
	}
	return out, nil
}

// insertInbox writes the inbox rows of items[at...] with multi-row
// INSERTs of up to insertChunk rows. A column whose value is the same in
// every row of a chunk (the kind and title of a sweep's reminders, all
// but id and user in a broadcast) is bound once for the chunk instead of
// once a row: the driver looks each bound value up linearly, so a
// statement's binding cost grows with the square of its values. Each
// statement shape is prepared once per call.
func insertInbox(app core.App, items []Addressed, datas, ids []string, at []int, created string) error {
	type shape struct{ rows, shared int }
	prepared := map[shape]*dbx.Query{}
	defer func() {
		for _, q := range prepared {
			q.Close()
		}
	}()
	params := make(dbx.Params, insertChunk*7+6)
	for start := 0; start < len(at); start += insertChunk {
		chunk := at[start:min(start+insertChunk, len(at))]
		sh := shape{len(chunk), sharedColumns(items, datas, chunk)}
		q := prepared[sh]
		if q == nil {
			q = app.DB().NewQuery(insertSQL(sh.rows, sh.shared)).Prepare()
			prepared[sh] = q
		}
		clear(params)
		fillInsertParams(params, items, datas, ids, chunk, created, sh.shared)
		if _, err := q.Bind(params).Execute(); err != nil {
			return err
		}
	}
	return nil
}

// The columns of an inbox row bound from an item besides id and user, in
// insertSQL's order: kind, title, body, url, data (bit c of a shared mask).
const insertValueColumns = 5

// columnValue is column c (0–4: kind, title, body, url, data) of item i.
func columnValue(items []Addressed, datas []string, i, c int) string {
	switch c {
	case 0:
		return items[i].Kind
	case 1:
		return items[i].Title
	case 2:
		return items[i].Body
	case 3:
		return items[i].URL
	}
	return datas[i]
}

// sharedColumns is the mask of the value columns equal in every row of
// at (bit c: column c of columnValue).
func sharedColumns(items []Addressed, datas []string, at []int) int {
	mask := 0
	for c := 0; c < insertValueColumns; c++ {
		v, same := columnValue(items, datas, at[0], c), true
		for _, i := range at[1:] {
			if columnValue(items, datas, i, c) != v {
				same = false
				break
			}
		}
		if same {
			mask |= 1 << c
		}
	}
	return mask
}

// insertSQL is an INSERT of n inbox rows with named placeholders. The
// rows are a VALUES list of their own values; the value columns in shared
// (a sharedColumns mask) and created come from a one-row SELECT beside it,
// so each of those is bound once for the statement, not once a row (dbx
// turns every occurrence of a name into its own "?", and the driver
// finds each bound value by a linear search).
func insertSQL(n, shared int) string {
	var sql strings.Builder
	sql.Grow(300 + n*90)
	sql.WriteString("INSERT OR FAIL INTO " + colNotifications +
		" (id, user, kind, title, body, url, data, readAt, created) SELECT v.column1, v.column2")
	col := 3 // the next column of v
	for c := 0; c < insertValueColumns; c++ {
		if shared&(1<<c) != 0 {
			sql.WriteString(", s." + sharedNames[c])
		} else {
			sql.WriteString(", v.column" + strconv.Itoa(col))
			col++
		}
	}
	sql.WriteString(", '', s.created FROM (SELECT {:created} AS created")
	for c := 0; c < insertValueColumns; c++ {
		if shared&(1<<c) != 0 {
			sql.WriteString(", {:" + sharedNames[c] + "} AS " + sharedNames[c])
		}
	}
	sql.WriteString(") s, (VALUES ")
	for r := 0; r < n; r++ {
		if r > 0 {
			sql.WriteByte(',')
		}
		n := &insertNames[r]
		sql.WriteString("({:" + n[0] + "},{:" + n[1] + "}")
		for c := 0; c < insertValueColumns; c++ {
			if shared&(1<<c) == 0 {
				sql.WriteString(",{:" + n[2+c] + "}")
			}
		}
		sql.WriteString(")")
	}
	sql.WriteString(") v")
	return sql.String()
}

// insertNames are the placeholder names of insertSQL's rows: row r's
// seven values are insertNames[r][0..6] (id, user, then the value
// columns).
var insertNames = func() (names [insertChunk][7]string) {
	for r := range names {
		p := "p" + strconv.Itoa(r) + "_"
		for c, f := range "iuktbld" {
			names[r][c] = p + string(f)
		}
	}
	return names
}()

// sharedNames are the placeholder names of the shared value columns.
var sharedNames = [insertValueColumns]string{"sk", "st", "sb", "sl", "sd"}

// fillInsertParams sets params to the values of insertSQL(len(at),
// shared) for items[at...] (len(at) ≤ insertChunk).
func fillInsertParams(params dbx.Params, items []Addressed, datas, ids []string, at []int, created string, shared int) {
	params["created"] = created
	for c := 0; c < insertValueColumns; c++ {
		if shared&(1<<c) != 0 {
			params[sharedNames[c]] = columnValue(items, datas, at[0], c)
		}
	}
	for r, i := range at {
		n := &insertNames[r]
		params[n[0]] = ids[i]
		params[n[1]] = items[i].UserID
		for c := 0; c < insertValueColumns; c++ {
			if shared&(1<<c) == 0 {
				params[n[2+c]] = columnValue(items, datas, i, c)
			}
		}
	}
}

// newID is a record id like PocketBase's: 15 characters of [a-z0-9],
// from the system's cryptographic random source (rejection sampling keeps
// every character equally likely).
func newID() string {
	const alphabet = core.DefaultIdAlphabet
	const limit = 256 - 256%len(alphabet)
	id := make([]byte, 0, core.DefaultIdLength)
	var buf [32]byte
	for len(id) < core.DefaultIdLength {
		_, _ = rand.Read(buf[:])
		for _, b := range buf {
			if int(b) < limit && len(id) < core.DefaultIdLength {
				id = append(id, alphabet[int(b)%len(alphabet)])
			}
		}
	}
	return string(id)
}

// idEpoch is where the time prefix of newOrderedID counts from.
var idEpoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// orderedPrefix is the length of newOrderedID's time prefix: milliseconds
// since idEpoch in base 36, zero-padded (36^8 ms last until 2109).
const orderedPrefix = 8

// newOrderedID is a record id of PocketBase's shape (15 characters of
// [a-z0-9]) whose first 8 characters are now's milliseconds since
// idEpoch in base 36 (digits before letters, so ids sort by time) and
// whose other 7 are random. Rows written in bulk then go to the end of the
// table's primary-key index instead of all over it: a sweep of 200,000
// inbox rows touched every page of that index in each batch. The random
// part (36^7 values per millisecond) keeps ids unguessable enough for
// rows every route reads through their owner; the caller rejects repeats
// within one call.
func newOrderedID(now time.Time) string {
	ms := now.Sub(idEpoch).Milliseconds()
	if ms < 0 {
		ms = 0
	}
	prefix := strconv.FormatInt(ms, 36)
	if len(prefix) > orderedPrefix {
		return newID()
	}
	return strings.Repeat("0", orderedPrefix-len(prefix)) + prefix + newID()[orderedPrefix:]
}

// deliverable returns the deliveries beyond the inbox that can reach
// someone: push when the user has a subscription and push on for the
// kind, e-mail when SMTP is enabled and e-mail on, WhatsApp when the user
// confirmed a number and WhatsApp is on for the kind. The jobs carry the
// recipient read by loadRecipients, so the delivery workers do not read
// the preferences and subscriptions again per user (a broadcast's workers
// spent a quarter of their time on those two queries).
func deliverable(app core.App, items []Addressed, ids []string, recips map[string]*recipient) []job {
	mail := app.Settings().SMTP.Enabled
	wa := whatsapp.Enabled(app)
	var jobs []job
	for i, it := range items {
		r := recips[it.UserID]
		if (len(r.subs) > 0 && r.prefs.allows(it.Kind, ChannelPush)) || (mail && r.prefs.allows(it.Kind, ChannelEmail)) ||
			(wa && r.phone != "" && r.prefs.allows(it.Kind, ChannelWhatsApp)) {
			data := it.Data
			if data == nil {
				data = map[string]any{}
			}
			jobs = append(jobs, job{ID: ids[i], UserID: it.UserID, Kind: it.Kind,
				Title: it.Title, Body: it.Body, URL: it.URL, Data: data, known: r})
		}
	}
	return jobs
}
