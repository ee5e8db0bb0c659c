package jobs

import (
	"bytes"
	"camellos/internal/readmodel"
	"encoding/binary"
	"strconv"

	"camellos/internal/jsonenc"
	"camellos/internal/timefmt"
)

// How the open board is stored (issue 27: the live heap at 100,000 open
// jobs). Each job is one fixed-size entry without pointers in one array,
// its texts (already JSON-escaped where the answer shows them) one after
// the other in one byte slab, and the lists are int32 positions in that
// array: the collector has no per-job object to mark, and a job costs
// ~200 bytes instead of the ~800 of a rendered JSON document with its
// own strings. A page renders its 20 jobs from these parts, the same
// bytes json.Marshal wrote for them (TestBoardEntryRendersAsMarshal).
//
// The array, the slab and the table of interned texts are append-only
// and shared by successive snapshots (readmodel.Grow): a patch appends
// past the end of the snapshot it derives from and publishes a longer
// view, so no view a reader holds ever changes. Replaced and removed jobs
// leave dead entries behind; once they pass a quarter of the listed ones
// the patch compacts the board into new arrays.

// boardEntry is one open job. Its texts are in the slab from text on,
// each prefixed by its length (uvarint), in the order of the field
// constants below; fCreatedISO and fIDJSON are there only when flagged.
type boardEntry struct {
	text   int64 // offset of the texts in the slab
	price  int64 // the agreed amount; rendered when > 0
	city   uint32
	source uint32
	key    uint32 // the folded city (the lists by city)
	flags  uint8
}

const (
	flagReviewed   = 1 << iota
	flagCreatedISO // createdAt is not the stored created with a T
	flagEscapedID  // the id needs escaping: its JSON is stored apart
)

// The texts of an entry, in slab order. fCreated and fID are raw (the
// board's order compares them); the others are JSON values.
const (
	fCreated     = iota // as stored
	fID                 // raw
	fTitle              // JSON string
	fDescription        // JSON string
	fNeighbor           // JSON string
	fClient             // JSON string (the client's id)
	fClientName         // JSON string
	fUpdated            // ISO, unquoted (only digits and -:.TZ)
	fCreatedISO         // ISO, unquoted, with flagCreatedISO
	fIDJSON             // JSON string, with flagEscapedID
	nFields
)

// store is the packed storage of one snapshot: entries, slab, interned
// texts (cities and sources as JSON literals, folded cities as they are).
type store struct {
	entries []boardEntry
	slab    []byte
	strs    []string
	strIdx  map[string]uint32 // copied before it changes (a published one never does)
	ownIdx  bool              // strIdx is this store's alone (a build's): a patch copies it to add a text
	dead    int               // entries not listed any more
	// slack is the growth of a copied array: 1/2 while a build appends
	// every job, 1/8 once built (patches append one job at a time; a
	// copy of the slab is a few milliseconds at 100,000 jobs).
	slack int
}

func newStore() *store { return &store{strIdx: map[string]uint32{}, ownIdx: true, slack: 2} }

// built drops the spare capacity of a built store; patches grow it by
// an eighth at a time.
func (s *store) built() {
	s.entries, s.slab = readmodel.Tight(s.entries), readmodel.Tight(s.slab)
	s.slack = 8
	s.ownIdx = false
}

// derive is the store of the next snapshot (the same arrays, its own views).
func (s *store) derive() *store {
	n := *s
	n.ownIdx = false
	return &n
}

// intern returns the index of v in the interned texts, adding it.
func (s *store) intern(v string) uint32 {
	return readmodel.Intern(&s.strs, &s.strIdx, v, v, !s.ownIdx)
}

// packedRow is one job rendered for a store: its entry (text is where its
// texts start in the buffer they were appended to) and what the store
// interns for it.
type packedRow struct {
	e       boardEntry
	at      int64  // createdKey of its created
	city    string // JSON literal
	source  string // JSON literal
	key     string // folded city
	service string
}

// renderer renders rows into packed texts; lits keeps the JSON literal of
// each city and source it rendered (a few hundred distinct ones).
type renderer struct {
	lits map[string]string
	tmp  []byte
}

// lit is v's JSON literal.
func (rd *renderer) lit(v string) string {
	if l, ok := rd.lits[v]; ok {
		return l
	}
	if rd.lits == nil {
		rd.lits = map[string]string{}
	}
	l := string(jsonenc.AppendString(nil, v))
	rd.lits[v] = l
	return l
}

// render appends row r's texts to slab (each prefixed by its length, in
// the order of the field constants) and returns its packed row.
func (rd *renderer) render(slab []byte, r *boardRow) ([]byte, packedRow) {
	p := packedRow{e: boardEntry{text: int64(len(slab))}, at: createdKey(r.Created), city: rd.lit(r.City), source: rd.lit(r.Source), key: r.CityKey, service: r.Service}
	if n := int64(int(r.PriceAmount)); n > 0 {
		p.e.price = n
	}
	if r.Reviewed {
		p.e.flags |= flagReviewed
	}
	put := func(t []byte) {
		slab = binary.AppendUvarint(slab, uint64(len(t)))
		slab = append(slab, t...)
	}
	putRaw := func(v string) {
		slab = binary.AppendUvarint(slab, uint64(len(v)))
		slab = append(slab, v...)
	}
	putRaw(r.Created)
	putRaw(r.ID)
	for _, v := range [...]string{r.Title, r.Description, r.Neighborhood, r.Client, r.ClientName} {
		rd.tmp = jsonenc.AppendString(rd.tmp[:0], v)
		put(rd.tmp)
	}
	rd.tmp = timefmt.AppendISOOfStored(rd.tmp[:0], r.Updated)
	put(rd.tmp)
	if rd.tmp = timefmt.AppendISOOfStored(rd.tmp[:0], r.Created); !isDBLayoutWithT(r.Created, rd.tmp) {
		p.e.flags |= flagCreatedISO
		put(rd.tmp)
	}
	if rd.tmp = jsonenc.AppendString(rd.tmp[:0], r.ID); len(rd.tmp) != len(r.ID)+2 { // escaping only lengthens
		p.e.flags |= flagEscapedID
		put(rd.tmp)
	}
	return slab, p
}

// createdKey is the digits of a created stored in timefmt.DBLayout as one
// number, which orders such dates as their texts do (-1 for another form).
func createdKey(created string) int64 {
	const layout = "dddd-dd-dd dd:dd:dd.dddZ"
	if len(created) != len(layout) {
		return -1
	}
	var n int64
	for i := 0; i < len(layout); i++ {
		switch c := created[i]; {
		case layout[i] == 'd' && c >= '0' && c <= '9':
			n = n*10 + int64(c-'0')
		case layout[i] != c:
			return -1
		}
	}
	return n
}

// isDBLayoutWithT reports whether iso is stored (in timefmt.DBLayout) with
// its space made a T: then appendJSON writes it from the stored created.
func isDBLayoutWithT(stored string, iso []byte) bool {
	return len(stored) == len(timefmt.DBLayout) && stored[10] == ' ' && len(iso) == len(stored) &&
		string(iso[:10]) == stored[:10] && iso[10] == 'T' && string(iso[11:]) == stored[11:]
}

// add renders row r as a new entry (not yet listed) and returns its index.
func (s *store) add(r *boardRow) int32 {
	var rd renderer
	buf, p := rd.render(nil, r)
	text := int64(len(s.slab))
	s.slab = append(readmodel.Grow(s.slab, len(buf), s.slack), buf...)
	return s.push(&p, text)
}

// push appends p's entry, its texts at text in the slab, and returns its
// index.
func (s *store) push(p *packedRow, text int64) int32 {
	e := p.e
	e.text, e.city, e.source, e.key = text, s.intern(p.city), s.intern(p.source), s.intern(p.key)
	s.entries = append(readmodel.Grow(s.entries, 1, s.slack), e)
	return int32(len(s.entries) - 1)
}

// decode reads entry i's texts and how many slab bytes they take.
func (s *store) decode(i int32) (t [nFields][]byte, size int64) {
	e := &s.entries[i]
	b := s.slab[e.text:]
	for f := range nFields {
		if (f == fCreatedISO && e.flags&flagCreatedISO == 0) || (f == fIDJSON && e.flags&flagEscapedID == 0) {
			continue
		}
		n, k := binary.Uvarint(b)
		t[f], b = b[k:k+int(n)], b[k+int(n):]
		size += int64(k) + int64(n)
	}
	return t, size
}

// order is entry i's order key: its stored created and its id.
func (s *store) order(i int32) (created, id []byte) {
	b := s.slab[s.entries[i].text:]
	n, k := binary.Uvarint(b)
	created, b = b[k:k+int(n)], b[k+int(n):]
	n, k = binary.Uvarint(b)
	return created, b[k : k+int(n)]
}

// cmp orders entries as the board does (created DESC, id DESC).
func (s *store) cmp(a, b int32) int {
	ca, ia := s.order(a)
	cb, ib := s.order(b)
	if c := bytes.Compare(cb, ca); c != 0 {
		return c
	}
	return bytes.Compare(ib, ia)
}

// before reports whether entry a comes before a job of that created and
// id (or is it).
func (s *store) before(a int32, created, id string) bool {
	ca, ia := s.order(a)
	if string(ca) != created {
		return string(ca) > created
	}
	return string(ia) > id
}

// appendJSON appends entry i's JSON: the bytes json.Marshal writes for
// jobs.JSON's map of an open job without "address" (its keys sorted), the
// service rendered as ref.
func (s *store) appendJSON(buf []byte, i int32, ref []byte) []byte {
	e := &s.entries[i]
	t, _ := s.decode(i)
	buf = append(buf, `{"city":`...)
	buf = append(buf, s.strs[e.city]...)
	buf = append(buf, `,"client":{"id":`...)
	buf = append(buf, t[fClient]...)
	buf = append(buf, `,"name":`...)
	buf = append(buf, t[fClientName]...)
	buf = append(buf, `},"clientId":`...)
	buf = append(buf, t[fClient]...)
	buf = append(buf, `,"createdAt":"`...)
	if e.flags&flagCreatedISO != 0 {
		buf = append(buf, t[fCreatedISO]...)
	} else {
		buf = append(buf, t[fCreated][:10]...)
		buf = append(buf, 'T')
		buf = append(buf, t[fCreated][11:]...)
	}
	buf = append(buf, `","description":`...)
	buf = append(buf, t[fDescription]...)
	buf = append(buf, `,"id":`...)
	if e.flags&flagEscapedID != 0 {
		buf = append(buf, t[fIDJSON]...)
	} else {
		buf = append(buf, '"')
		buf = append(buf, t[fID]...)
		buf = append(buf, '"')
	}
	buf = append(buf, `,"neighborhood":`...)
	buf = append(buf, t[fNeighbor]...)
	if e.price > 0 {
		buf = append(buf, `,"price":{"amount":`...)
		buf = strconv.AppendInt(buf, e.price, 10)
		buf = append(buf, `,"currency":"`+Currency+`"}`...)
	} else {
		buf = append(buf, `,"price":null`...)
	}
	buf = append(buf, `,"provider":null,"reviewed":`...)
	buf = strconv.AppendBool(buf, e.flags&flagReviewed != 0)
	buf = append(buf, `,"service":`...)
	buf = append(buf, ref...)
	buf = append(buf, `,"source":`...)
	buf = append(buf, s.strs[e.source]...)
	buf = append(buf, `,"status":"`+StatusPending+`","title":`...)
	buf = append(buf, t[fTitle]...)
	buf = append(buf, `,"updatedAt":"`...)
	buf = append(buf, t[fUpdated]...)
	return append(buf, `"}`...)
}

// compact copies the listed entries of bd into new arrays (in list
// order, so a page reads the slab forward) and makes the lists anew.
func (bd *board) compact() {
	old := bd.st
	st := &store{strs: old.strs, strIdx: old.strIdx, slack: old.slack}
	live := len(old.entries) - old.dead
	st.entries = make([]boardEntry, 0, live)
	st.slab = make([]byte, 0, len(old.slab)*live/max(len(old.entries), 1)+64)
	services := make(map[string]*serviceJobs, len(bd.services))
	for svc, sj := range bd.services {
		out := &serviceJobs{all: make([]int32, len(sj.all)), ref: sj.ref}
		for k, i := range sj.all {
			e := old.entries[i]
			_, n := old.decode(i)
			st.slab = append(st.slab, old.slab[e.text:e.text+n]...)
			e.text = int64(len(st.slab)) - n
			st.entries = append(st.entries, e)
			out.all[k] = int32(len(st.entries) - 1)
		}
		st.list(out, nil) // in order already; the lists by city
		services[svc] = out
	}
	st.built()
	bd.services, bd.st = services, st
}
