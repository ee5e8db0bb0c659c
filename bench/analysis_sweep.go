package main

// analysisSweep is the diagnosis of the reminder sweep's wall time on the
// AMD machine, written on 2026-11-29 (branch sweep-s7) from traces and
// CPU times of the service over one sweep of the large set, taken while
// four engineers shared the 2 cores (load 6–24): every figure carries its
// load; none is a quiet measurement.
const analysisSweep = `## Analysis (issue 27: the reminder sweep at 100,000, 2026-11-29)

14. **Reminder sweep: the checkpoints leave the writer.** Where 4.08 s became 6.07 s: the 4.08 s
    (and item 7's 4.2 s) were measured on 2026-11-22 on the Intel machine; this report's Machine
    line reads AMD EPYC from the run of 2026-11-28 03:24 on (7.88 s, load 8–28), and no Intel figure
    exists after 11-22. On the AMD machine in the same minutes, the sweep row alone (` + "`-skip`" + ` every
    other scenario, ` + "`-d 1s`" + `): commit 02f79e7 (the 4.08 s code) 5.38 s at load 13→10 and 8.43 s at
    4→10, main 8.13 s at 10→12 and 5.12 s at 6: the wall time at these loads does not rank them. The
    service's CPU for one sweep does (a copy of a data dir seeded by its own bench, load 16→9):
    02f79e7 4.18 / 4.03 s, main 4.59 / 4.34 s, +8 %. What the Go execution traces add (one sweep
    each, a minute apart, load 8–11): the writer waited 0.99 s in checkpoints on main (0.89 s of it
    fsync) against 0.69 s (0.48 s) on 02f79e7, and an earlier trace of main at load 11–15 1.86 s
    (1.69 s fsync): SQLite checkpoints at the commit that passes 1,000 WAL pages, so each batch of
    5,000 (thousands of pages) copied the WAL into data.db and synced both files on the writer,
    while no batch was written. The allocator's munmap: 0.74 s on main, 0.25 s on 02f79e7. The
    reader on its own connection (session 5) loses its page cache at each of the writer's commits
    (SQLite drops a connection's pages when another one commits): it reads them again and the
    allocator unmaps and maps their memory. No trigger, index or bench change is in the path: the
    inbox has no change counter, the appointments' UPDATE counter skips the claim's columns
    (1764400400), and ` + "`sweep()`" + ` and the large set are as on 11-22.

    Now the batches' checkpoints run beside the writer (` + "`writer.DeferCheckpoints`" + `):
    ` + "`wal_autocheckpoint`" + ` 0 on the writer's connection while a sweep is open, a PASSIVE checkpoint on
    a pooled connection after each commit, the last one waited for before the answer. Trace at load
    ~11: the writer's time in system calls 1.9 s (main, load 10–11) → 0.6 s, the checkpoints 0.9 s
    on their own goroutine; at load 16–19, 2.8 → 0.8 s. The inbox INSERTs bind ` + "`created`" + ` and the
    columns shared by a chunk once per statement (a one-row SELECT beside the VALUES rows; dbx had
    made a ` + "`?`" + ` of every occurrence, and the driver looks each value up linearly): ` + "`(*conn).bind`" + `
    0.38 → 0.16 s of CPU per sweep. CPU per sweep at load 24–21, interleaved: main 5.02 / 5.25 s,
    this 4.83 / 4.77 s; at 16→9: 4.26 / 4.10 s against main's 4.59 / 4.34 s; at 14 (three each,
    07:08–07:09): 4.24 / 4.42 / 4.11 s against 4.36 / 4.55 / 4.52 s (walls 9.0–14.3 s against
    12.9–17.6 s). Of that CPU (profile at load ~19) the reader has 1.86 s (due appointments 0.86,
    recipients 0.74), the writer 1.80 s (inserts 1.04, claim 0.51), the checkpoints 0.16 s, the
    collector ~0.25 s; with the checkpoints off its path the writer no longer waits on the disk, and
    on 2 idle cores the wall should follow the longer of reader and writer plus one batch: about
    2.2–2.6 s, under the goal. Not measured: the machine never came below load 6 during the session.
    The full-bench row alone, alternating, 06:43–06:56 at load 12–19: main 10.9 / 23.5 / 9.8 s, this
    15.0 / 16.6 / 4.1 s (noise); at 07:16–07:18, load 7→11: main 6.09 s, this 7.59 s. At load 7–9
    (07:13–07:15, five each on the seeded copy) the walls are alike: main 6.49 / 7.00 / 4.75 / 4.84
    / 5.45 s, this 5.81 / 5.45 / 4.99 / 4.82 / 12.80 s, CPU 4.1–4.4 s against 3.9–4.1 s: at such
    loads the process gets less than a core and its wall follows its CPU, which the change lowers by
    5–8 %; what it removes from the path (the writer's wait on the disk) shows only when the cores
    are free. Tried and not kept: one read transaction for all the reader's batches (munmap 0.28 s,
    but the checkpoints then wait for its end and run within the answer; CPU unchanged), a
    subscription packed in one column of the recipients' query (CPU unchanged). The
    ` + "`runtime.asyncPreempt`" + ` samples (up to 22 % of a profile) are an artifact: with
    ` + "`GODEBUG=asyncpreemptoff=1`" + ` they are gone and the CPU is the same.
`
