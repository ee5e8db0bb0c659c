package main

// analysis is the diagnosis of the goals missed in the run of 2026-11-22
// (CPU profiles from `go run ./bench -profile DIR`, query plans from the
// sqlite3 shell on a `-seed` data dir). Delete an item once its fix lands.
const analysis = `## Analysis of the misses (run of 2026-11-22, profiles with ` + "`-profile`" + `)

The machine was shared with other builds while measuring (see the load average above): absolute
figures are noisy, ratios within one run less so. Fixes below belong to other areas; "verified"
means applied in a scratch copy and re-measured with this bench.

1. **Pool and page cache (main.go, framework config) — peak RSS, categories, slots, every DB route.**
   PocketBase's defaults are DataMaxOpenConns 120 / DataMaxIdleConns 15 and every connection
   opens with ` + "`cache_size(-32000)`" + ` (32 MB of page cache each). Under 32 concurrent requests
   the pool grows past 15, so connections are closed and re-opened all the time
   (` + "`sqlite.newConn → sqlite3ReadSchema`" + ` was ~27 % of the categories profile), and each of the
   ~32 live connections fills its own page cache: 371 MB peak RSS under the listing load.
   *Fix:* in main.go ` + "`pocketbase.NewWithConfig(pocketbase.Config{DataMaxOpenConns: 8, DataMaxIdleConns: 8})`" + `
   (optionally a DBConnect with a smaller cache_size). Verified with ` + "`-open 8 -idle 8`" + `: peak RSS
   under the listing load 371 → 134–150 MB, categories 0.19× → 0.34× of health, PocketBase's
   generic list 617 → 1155 req/s. (The bench child mirrors main.go's construction; keep them in step,
   or move the construction into one exported function both call.)

2. **Listing (modules/camellos/public.go, publicFilter) — listing vs PocketBase, p99.**
   The city condition ` + "`cityKey = :c OR cityKey LIKE 'c %' ESCAPE '\\'`" + ` cannot use
   idx_camellos_city (LIKE never uses an index here), so SQLite walks idx_camellos_listing over all
   10,000 ACTIVO rows, running the services json_each/JOIN subquery per row: 50 ms per page query in
   the sqlite3 shell, 0.07× of PocketBase's generic list (whose ` + "`cityKey='c'`" + ` uses the index).
   *Fix:* the same prefix as a range, ` + "`cityKey = :c OR (cityKey >= :c||' ' AND cityKey < :c||'!')`" + `
   (a MULTI-INDEX OR on idx_camellos_city; 0.2 ms in the shell). Verified together with item 1:
   listing 44 → 395 req/s, p99 2.2 s → 215 ms. Still under PocketBase's list (0.40×) and far from
   0.35× of health: each call runs COUNT + page + services queries, and each candidate row of the
   city runs json_each with a two-index OR lookup on services (id OR slug). Next steps: resolve
   ` + "`service`" + ` (id or slug) to an id once; keep a camello↔service junction table (camello, service,
   cityKey, status, premium, ratingAvg, created) maintained by the camellos record hooks and indexed
   (service, status, cityKey) so a (city, service) page touches only matching rows; or cache listing
   answers in memory keyed by query, invalidated by a generation counter bumped in the camellos,
   services and reviews record hooks.

3. **Categories (modules/catalog/categories.go) — 0.7× of health.** After item 1 the remaining cost is
   the query with a correlated COUNT per category, its JSON, and PocketBase's per-request activity log
   row (~20 % of CPU on every route, health included). *Fix:* keep the rendered ` + "`{categories}`" + ` answer
   in memory (app.Store), dropped by the categories and services record hooks (create/update/delete);
   the route then costs about what health costs.

4. **Slots (modules/agenda) — 0.5× of health.** ` + "`FreeSlots`" + ` checked every candidate slot against every
   booking (` + "`busy()`" + `, O(slots × bookings) ≈ 150,000 comparisons for 31 days and 300 bookings; 23 %
   of CPU). *Fix:* sort the bookings once and binary-search with a running max of ends (verified in a
   scratch copy: FreeSlots 23 % → 5 % of CPU, the fuzz target FuzzFreeSlots still passes).
   ` + "`busyIntervals`" + ` (43 % after that) filters ` + "`status`" + ` with a bound parameter, so SQLite cannot use the
   partial index idx_appointments_booked_slot (its WHERE needs the literal ` + "`status = 'PROGRAMADA'`" + `),
   and only bounds ` + "`start < :to`" + `: it reads every past appointment of the camello up to ` + "`to`" + `, a cost that
   grows forever. *Fix:* literal status, plus ` + "`start > :from - 60 min`" + ` (appointments are 60 minutes).
   Each call also loads the camello and its availability; caching the schedule per camello (invalidated
   by the availability hook) removes one more query.

5. **Reminder sweep (modules/jobs/reminders.go + modules/notifications) — 10 s, 100 MB.** 100,000
   appointments took 99 s (200,020 inbox rows written, 100,010 appointments marked; correct) and grew
   the service by 191–301 MB. The claim UPDATE is batched (500), but
   per appointment ` + "`notifyReminder`" + ` calls ` + "`notifications.Notify`" + ` twice, each a preferences query plus a
   full ` + "`app.Save`" + ` of a record (validators, hooks, and an id generated from a regexp pattern: regexp
   ` + "`ReplaceAll`" + ` ~22 % of the sweep's CPU); each saved notification then queues a delivery job whose
   worker runs two more queries (preferences, subscriptions) while the sweep is still writing:
   200,000 jobs through a bounded, non-blocking queue (4096). In a sweep-only run (` + "`-keep`" + `, logs
   inspected) no "delivery queue full, dropped" line was logged — the four workers kept up — but
   nothing guarantees it on a slower disk or with push subscriptions to send to. *Fix:* a batch path in notifications, e.g.
   ` + "`NotifyMany(txApp, []Message)`" + `: one query for the preferences of the batch's users, one multi-row
   INSERT of the inbox rows (ids from core.GenerateDefaultRandomId), one query for the subscriptions of
   the users that want push, and one queued delivery task per batch (blocking with back-pressure, not
   dropping), all after the claim in the same transaction.

6. **Register camello — 0.8× of raw bcrypt.** 90 % of its CPU is the single bcrypt hash (cost 10,
   ` + "`auth.PrepareUser`" + `), as it should be; ` + "`auth.EmailTaken`" + ` (FindAuthRecordByEmail, ~8 %) is the rest.
   The measured ratio (0.70× to 1.44× over five runs) moves with the machine's load (the reference is measured a few seconds
   later); on a quiet machine it is at the goal. Nothing to fix beyond item 1.
`
