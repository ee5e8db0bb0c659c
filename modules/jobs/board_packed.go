package jobs

import (
	"encoding/binary"
	"strconv"

	"camellos/internal/jsonenc"
	"camellos/internal/timefmt"
)

// How the open board holds a job (issue 27: the live heap at 100,000 open
// jobs): one string, its texts (already JSON-escaped where the answer
// shows them) one after the other, each prefixed by its length
// (uvarint), in the order of the field constants below. A string holds no
// pointer for the collector to scan and never changes, so successive
// snapshots share it as they are; a job costs ~250 bytes instead of the
// ~800 of a rendered JSON document with its own strings. A page renders
// its jobs from these parts, the bytes json.Marshal wrote for them
// (TestBoardEntryRendersAsMarshal).
type boardJob string

// The texts of a job. fCreated and fID are raw (the board's order compares
// them); fKey is the folded city (the lists by city); the others are JSON.
const (
	fCreated     = iota // as stored
	fID                 // raw
	fKey                // folded city, raw
	fTitle              // JSON string
	fDescription        // JSON string
	fNeighbor           // JSON string
	fClient             // JSON string (the client's id)
	fClientName         // JSON string
	fCity               // JSON string
	fSource             // JSON string
	fPrice              // the agreed amount's digits ("" when none)
	fReviewed           // true or false
	fUpdated            // ISO, unquoted (only digits and -:.TZ)
	fCreatedISO         // ISO, unquoted; "" when the stored created with a T
	fIDJSON             // JSON string; "" when the id needs no escaping
	nFields
)

// packedJob is a job as a build reads it: its string, its createdKey (the
// lists' sort) and its service.
type packedJob struct {
	job     boardJob
	at      int64
	service string
}

// packer renders rows into jobs, reusing its buffers.
type packer struct{ buf, tmp []byte }

// pack renders row r as a job.
func (p *packer) pack(r *boardRow) packedJob {
	p.buf = p.buf[:0]
	put := func(t []byte) {
		p.buf = binary.AppendUvarint(p.buf, uint64(len(t)))
		p.buf = append(p.buf, t...)
	}
	putRaw := func(v string) {
		p.buf = binary.AppendUvarint(p.buf, uint64(len(v)))
		p.buf = append(p.buf, v...)
	}
	putRaw(r.Created)
	putRaw(r.ID)
	putRaw(r.CityKey)
	for _, v := range [...]string{r.Title, r.Description, r.Neighborhood, r.Client, r.ClientName, r.City, r.Source} {
		p.tmp = jsonenc.AppendString(p.tmp[:0], v)
		put(p.tmp)
	}
	p.tmp = p.tmp[:0]
	if n := int64(int(r.PriceAmount)); n > 0 {
		p.tmp = strconv.AppendInt(p.tmp, n, 10)
	}
	put(p.tmp)
	put(strconv.AppendBool(p.tmp[:0], r.Reviewed))
	put(timefmt.AppendISOOfStored(p.tmp[:0], r.Updated))
	if p.tmp = timefmt.AppendISOOfStored(p.tmp[:0], r.Created); isDBLayoutWithT(r.Created, p.tmp) {
		p.tmp = p.tmp[:0]
	}
	put(p.tmp)
	if p.tmp = jsonenc.AppendString(p.tmp[:0], r.ID); len(p.tmp) == len(r.ID)+2 { // escaping only lengthens
		p.tmp = p.tmp[:0]
	}
	put(p.tmp)
	return packedJob{job: boardJob(p.buf), at: createdKey(r.Created), service: r.Service}
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

// decode reads the first len(t) texts of j.
func (j boardJob) decode(t []string) {
	s := string(j)
	for f := range t {
		n, k := 0, 0
		for shift := 0; ; shift += 7 {
			c := s[k]
			k++
			if n |= int(c&0x7f) << shift; c < 0x80 {
				break
			}
		}
		t[f], s = s[k:k+n], s[k+n:]
	}
}

// order is j's order key: its stored created and its id.
func (j boardJob) order() (created, id string) {
	var t [2]string
	j.decode(t[:])
	return t[fCreated], t[fID]
}

// city is j's folded city (the key of its list by city).
func (j boardJob) city() string {
	var t [fKey + 1]string
	j.decode(t[:])
	return t[fKey]
}

// newer reports whether job a comes before job b on the board (created
// DESC, id DESC).
func newer(a, b boardJob) bool {
	ca, ia := a.order()
	cb, ib := b.order()
	if ca != cb {
		return ca > cb
	}
	return ia > ib
}

// before reports whether job a comes before a job of that created and id
// (or is it).
func (j boardJob) before(created, id string) bool {
	c, i := j.order()
	if c != created {
		return c > created
	}
	return i > id
}

// appendJSON appends j's JSON: the bytes json.Marshal writes for
// jobs.JSON's map of an open job without "address" (its keys sorted), the
// service rendered as ref.
func (j boardJob) appendJSON(buf []byte, ref []byte) []byte {
	var t [nFields]string
	j.decode(t[:])
	buf = append(buf, `{"city":`...)
	buf = append(buf, t[fCity]...)
	buf = append(buf, `,"client":{"id":`...)
	buf = append(buf, t[fClient]...)
	buf = append(buf, `,"name":`...)
	buf = append(buf, t[fClientName]...)
	buf = append(buf, `},"clientId":`...)
	buf = append(buf, t[fClient]...)
	buf = append(buf, `,"createdAt":"`...)
	if t[fCreatedISO] != "" {
		buf = append(buf, t[fCreatedISO]...)
	} else {
		buf = append(append(append(buf, t[fCreated][:10]...), 'T'), t[fCreated][11:]...)
	}
	buf = append(buf, `","description":`...)
	buf = append(buf, t[fDescription]...)
	buf = append(buf, `,"id":`...)
	if t[fIDJSON] != "" {
		buf = append(buf, t[fIDJSON]...)
	} else {
		buf = append(append(append(buf, '"'), t[fID]...), '"')
	}
	buf = append(buf, `,"neighborhood":`...)
	buf = append(buf, t[fNeighbor]...)
	if t[fPrice] != "" {
		buf = append(buf, `,"price":{"amount":`...)
		buf = append(buf, t[fPrice]...)
		buf = append(buf, `,"currency":"`+Currency+`"}`...)
	} else {
		buf = append(buf, `,"price":null`...)
	}
	buf = append(buf, `,"provider":null,"reviewed":`...)
	buf = append(buf, t[fReviewed]...)
	buf = append(buf, `,"service":`...)
	buf = append(buf, ref...)
	buf = append(buf, `,"source":`...)
	buf = append(buf, t[fSource]...)
	buf = append(buf, `,"status":"`+StatusPending+`","title":`...)
	buf = append(buf, t[fTitle]...)
	buf = append(buf, `,"updatedAt":"`...)
	buf = append(buf, t[fUpdated]...)
	return append(buf, `"}`...)
}
