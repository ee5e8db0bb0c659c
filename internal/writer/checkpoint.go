package writer

import (
	"strconv"
	"sync"

	"github.com/pocketbase/pocketbase/core"
)

// walAutocheckpoint is SQLite's own wal_autocheckpoint (pages), which the
// connection string (modules/app.go) leaves as it is: a commit that leaves
// more frames than this in the WAL checkpoints it before returning.
const walAutocheckpoint = 1000

// Checkpoints takes the WAL checkpoints of a bulk write (many large
// transactions back to back, e.g. the reminder sweep's batches) off the
// writer. Left to SQLite, every commit past walAutocheckpoint frames
// copies the WAL into the database file and syncs both files before it
// returns, on the writer's connection: in a sweep of 100,000 reminders
// (~20 batches of thousands of pages each) that was a checkpoint per
// batch, 1.9 s of the writer's time in a trace at load 11–15 (1.7 s of it
// in fsync), during which no batch was written. While a Checkpoints is
// open, the transactions that call Hold do not checkpoint at their commit
// (wal_autocheckpoint 0 on the writer's connection); after each commit,
// Committed asks a goroutine to run a PASSIVE checkpoint on a pooled
// connection, beside the writer's next transaction (SQLite lets a writer
// append to the WAL while another connection checkpoints it; a PASSIVE
// checkpoint waits for nobody and copies what no reader still needs). Done
// puts the connection's autocheckpoint back once no Checkpoints is open and
// waits for the last checkpoint, so the work leaves the WAL as short as
// autocheckpoints would have. Writes of other routes meanwhile do not
// checkpoint either; the goroutine does it for them after the bulk
// write's next commit.
type Checkpoints struct {
	app  core.App
	kick chan struct{}
	done chan struct{}
}

// held counts the open Checkpoints of each app's writer connection (the
// nonconcurrent pool has one connection), keyed by the app's store: the
// same for every value that wraps one app (a route's e.App, the cron's
// app). Each transaction of a bulk write holds the checkpoints itself
// (Hold), so the count only keeps one bulk write's end from giving them
// back while another still writes.
var held = struct {
	sync.Mutex
	n map[any]int
}{n: map[any]int{}}

// DeferCheckpoints opens a Checkpoints for app (not a transaction).
func DeferCheckpoints(app core.App) *Checkpoints {
	held.Lock()
	held.n[app.Store()]++
	held.Unlock()
	c := &Checkpoints{app: app, kick: make(chan struct{}, 1), done: make(chan struct{})}
	go c.loop()
	return c
}

// Hold turns the autocheckpoint of txApp's connection (the writer's) off
// for this transaction's commit; call it in each transaction of the bulk
// write.
func (c *Checkpoints) Hold(txApp core.App) error {
	_, err := txApp.DB().NewQuery("PRAGMA wal_autocheckpoint = 0").Execute()
	return err
}

// Committed asks for a checkpoint after a commit (it never waits: a
// checkpoint asked for while one runs is run once after it).
func (c *Checkpoints) Committed() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *Checkpoints) loop() {
	defer close(c.done)
	for range c.kick {
		// Outside any transaction, on a pooled connection. An error
		// (the database busy with another process's checkpoint) only
		// leaves the WAL longer: the next commit checkpoints again.
		_, _ = c.app.DB().NewQuery("PRAGMA wal_checkpoint(PASSIVE)").Execute()
	}
}

// Done ends the bulk write: once no other Checkpoints of the app is open,
// the writer's connection checkpoints at its commits again; then the last
// checkpoint asked for is waited for. Call it once, after the last
// transaction that called Hold and the last Committed.
func (c *Checkpoints) Done() error {
	key := c.app.Store()
	held.Lock()
	held.n[key]--
	last := held.n[key] == 0
	if last {
		delete(held.n, key)
	}
	held.Unlock()
	var err error
	if last {
		err = Transaction(c.app, func(txApp core.App) error {
			held.Lock()
			defer held.Unlock()
			if held.n[key] > 0 { // another bulk write opened meanwhile: it holds them
				return nil
			}
			_, err := txApp.DB().NewQuery("PRAGMA wal_autocheckpoint = " + strconv.Itoa(walAutocheckpoint)).Execute()
			return err
		})
	}
	c.Committed()
	close(c.kick)
	<-c.done
	return err
}
