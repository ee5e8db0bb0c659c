package main

// analysisMemory is the diagnosis behind issue 27's memory rows, written
// on 2026-11-27 (branch memory-s4) from one run of the large set and its
// 100,000 growth point (`-profile`) while the machine ran at load 25–40:
// the memory figures hold at any load; the rates do not.
const analysisMemory = `## Analysis (issue 27: memory at 100,000 camellos, 2026-11-27)

12. **Live heap — met: 143.5 MB → 88.4 MB.** The open board held 78–81 MB at 100,000 open jobs, 61 MB
    of it each job's rendered JSON (` + "`encoding/json.Marshal`" + ` in the heap profile) and 6 MB its
    strings read from SQLite. It is now packed like the listing: one 32-byte entry per job without
    pointers, the job's texts (escaped for JSON once) in one byte slab, int32 lists, cities and
    sources interned; a page renders its jobs from these parts, the same bytes as before. At the
    growth point: the board 26.2 MB (slab 20.2 MB, entries 3.8 MB, lists 1.5 MB), the listing 57.2 MB,
    the service at rest 4.1 MB. Patches append to the store (shared by successive snapshots, each
    seeing its own prefix) and compact it once dead entries pass a quarter of the live ones.

13. **Peak RSS under the mixed load — met: 597 MB (two sessions before) → 265 MB**, default
    configuration (no ` + "`MEMORY_LIMIT_MB`" + `, GOGC 100). Right after the mixed load on the large set:
    heap in use 147 MB, live ~98 MB (listing 57 MB, board 32 MB at the large set's open jobs), next GC
    at 196 MB, Go total 266 MB. What drives the peak now is the collector's doubling of a ~100 MB live
    heap; the packed projections are pointer-free, so a cycle marks little of it. This run's mixed load
    ran at a fraction of a quiet machine's rate (57 writes/s): a quiet run carries more requests in
    flight, so its peak is to be read again there.
`
