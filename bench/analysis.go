package main

// analysis is the diagnosis of the goals of issue #7 (CPU profiles from
// `go run ./bench -profile DIR`, query plans from the sqlite3 shell on a
// `-seed` data dir): what was fixed, and why what is still missed is missed.
// Delete an item once its fix lands.
const analysis = `## Analysis (run of 2026-11-22, profiles with ` + "`-profile`" + `)

The machine is shared with other builds (see the load average above): absolute figures are noisy,
ratios within one run less so. "Before" figures are the run of 03:14 UTC on main (0b6adcc).

1. **Pool and page cache (modules.New).** DataMaxOpenConns 8 / DataMaxIdleConns 8 instead
   of PocketBase's 120 / 15: no connection churn (` + "`sqlite3ReadSchema`" + ` was ~27 % of the categories
   profile). Each connection's SQLite page cache is 8 MB instead of PocketBase's 32 MB (a DBConnect
   with ` + "`cache_size(-8000)`" + `): the hot reads are answered from in-memory indexes, so the smaller cache
   costs nothing measurable. Peak RSS under the listing load (VmHWM after the health and listing
   scenarios) 387 MB → 137–152 MB with the pool alone → ~95 MB with the smaller cache; the listing
   index adds ~10 MB of live heap, and its build ~20 MB of garbage (it renders structs, not maps).

2. **Listing — met (was 0.11× of PocketBase, 0.01× of health, p99 2.4 s).** The SQL filter could not
   use an index (` + "`cityKey LIKE 'c %'`" + `) and ran a json_each over the services of every ACTIVO camello.
   Now ` + "`modules/camellos/index.go`" + ` keeps the public projection of the ACTIVO camellos in memory:
   each camello's public JSON rendered once (byte for byte what ` + "`camellos.One`" + ` renders — a test
   checks it), its folded city and search text, its services and their categories, in the listing
   order, plus position lists by city, service id and category id. A request takes the narrowest
   candidate list, applies the remaining conditions with the same semantics as the SQL (every word of
   q and any trade form as substrings of searchText, city equal or "city " prefix, service by id or
   slug), counts and copies the page's pre-rendered bytes. ` + "`GET /api/camellos/{id}`" + ` answers from
   the same index. The index is built lazily in two queries (services, ACTIVO camellos), one build at
   a time (internal/memo), and dropped by record hooks after every committed write that can change
   an answer: camellos that are or were ACTIVO, services, categories, reviews (the rating is updated by
   raw SQL in the review's transaction; the review's AfterCreateSuccess fires after the commit). A
   generation counter discards a build that raced a write; a background refresh every minute covers
   writes made around the hooks (raw SQL, another process). Measured: 46 → 18,000–19,800 req/s, ~16× of
   PocketBase's list, ~1.25× of health (health still writes an activity-log row, the listing no longer
   does), p99 2.4 s → 8 ms.

3. **Categories — met (was 0.22× of health).** The rendered ` + "`{categories}`" + ` answer is kept in memory
   (app.Store, internal/memo), dropped after any committed category or service write; the public
   catalog GETs skip the success activity log. 1,771 → 19,500–31,000 req/s (1.8–1.95× of health).

4. **Slots — met (0.05× → 0.11× on main → ~0.6× of health).** Earlier: ` + "`FreeSlots`" + ` sorts the bookings
   once (binary search over the running maximum of their ends), the bookings query uses the partial
   index, the route skips the success activity log. Then, measured one step at a time with
   ` + "`-skip sweep,register`" + ` (slots req/s / health req/s of the same run):
   (a) ` + "`modules/agenda/view.go`" + `: a per-camello agenda view in memory (app.Store, one internal/memo
   cache per camello, bounded at 20,000): status, zone, weekly ranges, blocked dates and the sorted
   busy intervals of its PROGRAMADA appointments starting after now − 1 h, built in two queries on
   first use; a build that raced a write is handed to its reader only. It is dropped after the commit
   of every write that can change it: appointment, availability and camello record hooks
   (After*Success), and the two raw ` + "`UPDATE appointments SET status = 'CANCELADA'`" + ` paths, which now both
   go through ` + "`jobs.CancelAppointments`" + ` (one conditional UPDATE … RETURNING camello, then the drop on
   the transaction's OnComplete). Booking still decides on the database (transaction + unique partial
   index). 0.15× → 0.29× (1,312 → 4,731 req/s). (b) The answer is appended to a byte buffer (same bytes
   as encoding/json — tested), the slots come out in order without a sort, bookings are walked with a
   cursor: → 0.34×. (c) ` + "`internal/session/cache.go`" + `: LoadSession keeps token hash → session, user (each
   request gets a Clone), expiry; dropped at once by RevokeSession/RevokeUserSessions (and again after
   the commit), by any users or sessions record write, re-read at least every 15 s (writes around this
   process): → 0.57–0.61× (8,773–9,796 req/s); the full run above: 10,195 req/s, 0.65×. Tests: every kind of write shows on the very next slots
   request and equals FreeSlotsOf read from the database; the session cache follows renames,
   revocations (also in a transaction) and disabled users. Remaining cost (profile): slot
   generation ~30 % (WallTime and the 31 days of ranges), rendering ~10 %, the rest net/http,
   PocketBase's middleware chain and GC; the session lookup and the view are no longer visible.

5. **Reminder sweep — met since the bulk path merged from main** (was 1m30s and 222 MB of growth on
   0b6adcc). The sweep claims appointments in batches and writes their notifications through
   ` + "`notifications.NotifyMany`" + ` (one preferences query, multi-row INSERTs, a delivery queue that
   never drops). Not part of issue #7's changes; kept here for the record.

6. **Register camello — 0.8× of raw bcrypt.** 90 % of its CPU is the single bcrypt hash (cost 10,
   ` + "`auth.PrepareUser`" + `), as it should be; ` + "`auth.EmailTaken`" + ` (FindAuthRecordByEmail, ~8 %) is the rest.
   The measured ratio (0.70× to 1.44× over five runs) moves with the machine's load (the reference is measured a few seconds
   later); on a quiet machine it is at the goal. Nothing to fix beyond item 1.
`
