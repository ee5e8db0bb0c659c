package main

// analysisPerf is the diagnosis behind issue 27's sweep and write-CPU
// rows, written on 2026-11-27 (branch perf) from profiles taken while the
// machine ran at load 20–29 (five engineers on 2 cores): the shares are
// of the profiles' samples; absolute times from that machine are not
// goals (the tables above are the latest run).
const analysisPerf = `## Analysis (issue 27: the reminder sweep and the CPU per write, 2026-11-27)

10. **Reminder sweep: the writer only claims and inserts.** A profile of one sweep of 100,008 on the
    small set put 95 % of the samples on the writer goroutine (claim 16 %, describing the batch 13 %,
    recipients 11 %, inbox inserts 32 %, commit 8 %). A reader on another connection now reads batch
    k+1 (the due appointments from a (start, rowid) cursor with what their reminders show, then the
    recipients' preferences and subscriptions) while the writer's transaction claims batch k by rowid
    (` + "`appointments.ClaimListed`" + `, conditional: exactly once) and writes its inbox rows with the
    recipients already read. The appointments table's UPDATE change counter no longer fires for the
    claim's two columns (migration 1764400400). Same profile after: writer 7.3 s of 11.2 s sampled
    (before: 11.9 s of 12.5 s), the reader 3.3 s beside it; process CPU about the same. On a quiet
    2-core machine the sweep's wall time should follow the writer's, about 0.6× of before (4.08 s on
    the large set): not measured, no quiet machine this session. What the writer keeps is
    the inbox INSERTs (47 % of it; a third of that is the driver binding 7 values a row, which it looks
    up linearly) and the claim's and inserts' B-tree work. An INSERT … SELECT FROM json_each of one
    bound JSON array was measured slower: json_each turns each row back into text for ->> to parse.

11. **CPU per write.** Measured as the service's process CPU over a load divided by its answered
    writes, per class alone and over the write-only load. The write-only profile (11 s, load ~25): the
    writer's transactions 46 % of the samples, FindRecordById 21 % (every class reads its job, quote,
    camello or session through PocketBase's record layer, some more than once: an accept read the
    camello three times, now twice), commits 14 %, the change watcher's probe after each commit 8 %
    (` + "`dbwatch.endCommit`" + ` reads ` + "`change_counters`" + ` on the writer's goroutine), our middleware chain
    (session, origin check, quotas, metrics, logs) about 15 %. The target (0.8 ms) is not reached
    by this branch.
`
