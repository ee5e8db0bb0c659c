package ledger_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"camellos/internal/config"
	"camellos/internal/testkit"
	"camellos/modules/ledger"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

var errFault = errors.New("injected fault")

// model is the test's own bookkeeping: what every account must hold after
// the movements that committed.
type model struct {
	bal      map[string]int64
	txs      int
	lines    map[string][]ledger.Line // committed transaction id → lines
	keys     map[string]string        // committed key → id
	reversed map[string]bool
	kinds    map[string]string
}

func (m *model) apply(id, key, kind string, lines []ledger.Line) {
	m.txs++
	m.lines[id] = lines
	m.keys[key] = id
	m.kinds[id] = kind
	for _, l := range lines {
		m.bal[l.Account] += l.Amount
	}
}

// overdraws predicts ErrOverdrawn: a line toward zero would take a client,
// held or revenue account into debit, or client_payments into credit.
func (m *model) overdraws(lines []ledger.Line) bool {
	d := map[string]int64{}
	for _, l := range lines {
		d[l.Account] += l.Amount
	}
	for acc, v := range d {
		after := m.bal[acc] + v
		switch {
		case (strings.HasPrefix(acc, "held:") || strings.HasPrefix(acc, "client:") || acc == ledger.AccountPlatformRevenue) && after > 0 && v > 0,
			acc == ledger.AccountClientPayments && after < 0 && v < 0:
			return true
		}
	}
	return false
}

type payment struct{ id, client, camello string }

// TestLedgerRandomWithFaults runs thousands of random movements (charges,
// holds, releases with commission, refunds, payouts, adjustments,
// reversals) with faults injected between them: rolled-back transactions,
// unbalanced, zero, fractional and unknown-account movements, replayed
// keys, overdrafts, double reversals, and tampering through raw SQL and
// through records. Every account summed from the rows equals the test's
// own model, all accounts sum to zero, and Verify passes.
func TestLedgerRandomWithFaults(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	app := k.App
	ops := 3000
	if v := config.Switch(config.SwitchLedgerOps); v != "" {
		ops, _ = strconv.Atoi(v)
	}
	rng := rand.New(rand.NewPCG(23, 2026))
	m := &model{bal: map[string]int64{}, lines: map[string][]ledger.Line{}, keys: map[string]string{}, reversed: map[string]bool{}, kinds: map[string]string{}}
	clients := make([]string, 8)
	cams := make([]string, 8)
	for i := range clients {
		clients[i] = core.GenerateDefaultRandomId()
		cams[i] = core.GenerateDefaultRandomId()
	}
	var pays []payment
	seq := 0
	key := func(kind string) string { seq++; return fmt.Sprintf("%s:%d", kind, seq) }
	faults := map[string]int{}

	// commit posts the movements in one transaction; with rollback the
	// transaction fails after they were written (nothing may remain).
	commit := func(rollback bool, ms ...ledger.Movement) error {
		ids := make([]string, len(ms))
		err := app.RunInTransaction(func(tx core.App) error {
			for i, mv := range ms {
				id, fresh, err := ledger.Post(tx, mv)
				if err != nil {
					return err
				}
				if !fresh {
					return fmt.Errorf("fresh key %q answered as a duplicate", mv.Key)
				}
				ids[i] = id
			}
			if rollback {
				return errFault
			}
			return nil
		})
		if err == nil {
			for i, mv := range ms {
				m.apply(ids[i], mv.Key, mv.Kind, mv.Lines)
			}
		}
		return err
	}
	mustCommit := func(ms ...ledger.Movement) {
		t.Helper()
		rollback := rng.IntN(10) == 0
		err := commit(rollback, ms...)
		if rollback {
			faults["rollback"]++
			if !errors.Is(err, errFault) {
				t.Fatalf("rolled-back transaction: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", ms[0].Kind, err)
		}
	}
	camBal := func(c string) int64 { return m.bal[ledger.AccountOfCamello(c)] }

	for op := 0; op < ops; op++ {
		switch r := rng.IntN(100); {
		case r < 25 || len(pays) == 0: // a client pays: charge, then hold
			p := payment{core.GenerateDefaultRandomId(), clients[rng.IntN(len(clients))], cams[rng.IntN(len(cams))]}
			amount := int64(10_000 + rng.IntN(2_000_000))
			cl, held := ledger.AccountOfClient(p.client), ledger.AccountOfHeld(p.id)
			mustCommit(
				ledger.Movement{Kind: ledger.KindCharge, Key: key("charge"), Ref: p.id, Lines: []ledger.Line{{ledger.AccountClientPayments, amount}, {cl, -amount}}},
				ledger.Movement{Kind: ledger.KindHold, Key: key("hold"), Ref: p.id, Lines: []ledger.Line{{cl, amount}, {held, -amount}}},
			)
			pays = append(pays, p)
		case r < 45: // release (all or part) with the commission
			p := pays[rng.IntN(len(pays))]
			held := -m.bal[ledger.AccountOfHeld(p.id)]
			if held == 0 {
				continue
			}
			amount := held
			if rng.IntN(3) == 0 {
				amount = 1 + rng.Int64N(held)
			}
			fee := amount * 10 / 100
			ms := []ledger.Movement{{Kind: ledger.KindRelease, Key: key("release"), Ref: p.id,
				Lines: []ledger.Line{{ledger.AccountOfHeld(p.id), amount}, {ledger.AccountOfCamello(p.camello), -amount}}}}
			if fee > 0 {
				ms = append(ms, ledger.Movement{Kind: ledger.KindCommission, Key: key("commission"), Ref: p.id,
					Lines: []ledger.Line{{ledger.AccountOfCamello(p.camello), fee}, {ledger.AccountPlatformRevenue, -fee}}})
			}
			mustCommit(ms...)
		case r < 55: // refund (all or part) of what is held
			p := pays[rng.IntN(len(pays))]
			held := -m.bal[ledger.AccountOfHeld(p.id)]
			if held == 0 {
				continue
			}
			amount := 1 + rng.Int64N(held)
			mustCommit(ledger.Movement{Kind: ledger.KindRefund, Key: key("refund"), Ref: p.id,
				Lines: []ledger.Line{{ledger.AccountOfHeld(p.id), amount}, {ledger.AccountClientPayments, -amount}}})
		case r < 62: // payout of a camello's balance
			c := cams[rng.IntN(len(cams))]
			owed := -camBal(c)
			if owed <= 0 {
				continue
			}
			mustCommit(ledger.Movement{Kind: ledger.KindPayout, Key: key("payout"), Ref: "batch-" + strconv.Itoa(op),
				Lines: []ledger.Line{{ledger.AccountOfCamello(c), owed}, {ledger.AccountClientPayments, -owed}}})
		case r < 66: // adjustment: the platform gives back part of its revenue
			rev := -m.bal[ledger.AccountPlatformRevenue]
			if rev <= 0 {
				continue
			}
			amount := 1 + rng.Int64N(rev)
			mustCommit(ledger.Movement{Kind: ledger.KindAdjustment, Key: key("adjustment"), Memo: "corrección",
				Lines: []ledger.Line{{ledger.AccountPlatformRevenue, amount}, {ledger.AccountOfCamello(cams[rng.IntN(len(cams))]), -amount}}})
		case r < 74: // reversal of a random transaction (refused when it would overdraw)
			var id string
			for candidate, kind := range m.kinds { // map order: random enough
				if kind != ledger.KindReversal {
					id = candidate
					break
				}
			}
			if id == "" {
				continue
			}
			neg := []ledger.Line{}
			for _, l := range m.lines[id] {
				neg = append(neg, ledger.Line{Account: l.Account, Amount: -l.Amount})
			}
			k := key("reversal")
			rid, fresh, err := ledger.Reverse(app, id, k, "prueba")
			switch {
			case m.reversed[id]:
				faults["double reversal"]++
				if !errors.Is(err, ledger.ErrReversed) {
					t.Fatalf("second reversal of %s: %v", id, err)
				}
			case m.overdraws(neg):
				faults["reversal overdraft"]++
				if !errors.Is(err, ledger.ErrOverdrawn) {
					t.Fatalf("overdrawing reversal of %s: %v", id, err)
				}
			default:
				if err != nil || !fresh {
					t.Fatalf("reversal of %s: %v", id, err)
				}
				m.reversed[id] = true
				m.apply(rid, k, ledger.KindReversal, neg)
			}
		case r < 78: // a replayed key writes nothing
			for k, id := range m.keys {
				if m.kinds[id] == ledger.KindReversal {
					continue
				}
				faults["replay"]++
				got, fresh, err := ledger.Post(app, ledger.Movement{Kind: m.kinds[id], Key: k, Lines: m.lines[id]})
				if err != nil || fresh || got != id {
					t.Fatalf("replayed key %q: id %q (want %q) fresh %v err %v", k, got, id, fresh, err)
				}
				break
			}
		case r < 82: // overdraft: releasing more than is held
			p := pays[rng.IntN(len(pays))]
			held := -m.bal[ledger.AccountOfHeld(p.id)]
			faults["overdraft"]++
			_, _, err := ledger.Post(app, ledger.Movement{Kind: ledger.KindRelease, Key: key("over"), Ref: p.id,
				Lines: []ledger.Line{{ledger.AccountOfHeld(p.id), held + 1}, {ledger.AccountOfCamello(p.camello), -(held + 1)}}})
			if !errors.Is(err, ledger.ErrOverdrawn) {
				t.Fatalf("over-release: %v", err)
			}
		case r < 90: // malformed movements
			c := ledger.AccountOfCamello(cams[0])
			bad := []struct {
				name string
				m    ledger.Movement
				want error
			}{
				{"unbalanced", ledger.Movement{Kind: ledger.KindAdjustment, Key: key("bad"), Lines: []ledger.Line{{c, 100}, {ledger.AccountPlatformRevenue, -99}}}, ledger.ErrUnbalanced},
				{"zero line", ledger.Movement{Kind: ledger.KindAdjustment, Key: key("bad"), Lines: []ledger.Line{{c, 100}, {ledger.AccountPlatformRevenue, -100}, {c, 0}}}, ledger.ErrUnbalanced},
				{"one line", ledger.Movement{Kind: ledger.KindAdjustment, Key: key("bad"), Lines: []ledger.Line{{c, 100}}}, ledger.ErrUnbalanced},
				{"unknown account", ledger.Movement{Kind: ledger.KindAdjustment, Key: key("bad"), Lines: []ledger.Line{{c, 100}, {"bank", -100}}}, ledger.ErrAccount},
				{"unknown kind", ledger.Movement{Kind: "gift", Key: key("bad"), Lines: []ledger.Line{{c, 100}, {ledger.AccountPlatformRevenue, -100}}}, ledger.ErrKind},
				{"no key", ledger.Movement{Kind: ledger.KindAdjustment, Lines: []ledger.Line{{c, 100}, {ledger.AccountPlatformRevenue, -100}}}, ledger.ErrNoKey},
			}
			b := bad[rng.IntN(len(bad))]
			faults[b.name]++
			if _, _, err := ledger.Post(app, b.m); !errors.Is(err, b.want) {
				t.Fatalf("%s: %v, want %v", b.name, err, b.want)
			}
		case r < 96: // tampering through raw SQL: the triggers refuse it
			var txID string
			for id := range m.lines {
				txID = id
				break
			}
			tamper := []struct{ name, sql string }{
				{"sql update line", "UPDATE ledger_entries SET amount = amount + 1 WHERE tx = {:tx}"},
				{"sql update header", "UPDATE ledger_transactions SET memo = 'x' WHERE id = {:tx}"},
				{"sql delete line", "DELETE FROM ledger_entries WHERE tx = {:tx}"},
				{"sql delete header", "DELETE FROM ledger_transactions WHERE id = {:tx}"},
				{"sql line into a written transaction", "INSERT INTO ledger_entries (tx, account, amount) VALUES ({:tx}, 'platform_revenue', 5)"},
				{"sql fractional line", "INSERT INTO ledger_entries (tx, account, amount) VALUES ('zzzzzzzzzzzzzzz', 'platform_revenue', 2.5)"},
			}
			tm := tamper[rng.IntN(len(tamper))]
			faults[tm.name]++
			if _, err := app.DB().NewQuery(tm.sql).Bind(dbx.Params{"tx": txID}).Execute(); err == nil || !strings.Contains(err.Error(), "ledger:") {
				t.Fatalf("%s: %v", tm.name, err)
			}
			// An unbalanced transaction written row by row: the header is refused,
			// the transaction rolls back with its lines.
			if tm.name == "sql fractional line" {
				faults["sql unbalanced"]++
				err := app.RunInTransaction(func(tx core.App) error {
					for _, a := range []int{7, -6} {
						if _, err := tx.DB().NewQuery("INSERT INTO ledger_entries (tx, account, amount) VALUES ('yyyyyyyyyyyyyyy', 'platform_revenue', {:a})").
							Bind(dbx.Params{"a": a}).Execute(); err != nil {
							return err
						}
					}
					_, err := tx.DB().NewQuery("INSERT INTO ledger_transactions (id, kind, key, at) VALUES ('yyyyyyyyyyyyyyy', 'adjustment', 'sql', 'x')").Execute()
					return err
				})
				if err == nil || !strings.Contains(err.Error(), "ledger:") {
					t.Fatalf("unbalanced raw transaction: %v", err)
				}
			}
		default: // tampering through records (dashboard, generic API): the hooks refuse it
			var txID string
			for id := range m.lines {
				txID = id
				break
			}
			rec, err := app.FindRecordById(ledger.CollectionTransactions, txID)
			if err != nil {
				t.Fatal(err)
			}
			switch rng.IntN(3) {
			case 0:
				faults["record update"]++
				rec.Set("memo", "cambiado")
				err = app.Save(rec)
			case 1:
				faults["record delete"]++
				err = app.Delete(rec)
			default:
				faults["record create"]++
				col, _ := app.FindCollectionByNameOrId(ledger.CollectionEntries)
				n := core.NewRecord(col)
				n.Set("tx", txID)
				n.Set("account", ledger.AccountPlatformRevenue)
				n.Set("amount", 5)
				err = app.Save(n)
			}
			if err == nil || !strings.Contains(err.Error(), "no se edita") {
				t.Fatalf("record write: %v", err)
			}
		}
	}

	// Every account derived from the rows equals the model.
	var rows []struct {
		Account string `db:"account"`
		Sum     int64  `db:"s"`
	}
	if err := app.DB().NewQuery("SELECT account, SUM(amount) AS s FROM ledger_entries GROUP BY account").All(&rows); err != nil {
		t.Fatal(err)
	}
	var total int64
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.Account] = true
		total += r.Sum
		if m.bal[r.Account] != r.Sum {
			t.Errorf("account %s: %d in the ledger, %d in the model", r.Account, r.Sum, m.bal[r.Account])
		}
		if b, err := ledger.Balance(app, r.Account); err != nil || b != r.Sum {
			t.Errorf("Balance(%s) = %d, %v; want %d", r.Account, b, err, r.Sum)
		}
	}
	for acc, v := range m.bal {
		if !seen[acc] && v != 0 {
			t.Errorf("account %s: missing from the ledger, %d in the model", acc, v)
		}
	}
	if total != 0 {
		t.Errorf("all accounts sum to %d", total)
	}
	rep, err := ledger.Verify(app)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Transactions != int64(m.txs) {
		t.Fatalf("verify: %d transactions (model %d)\n%s", rep.Transactions, m.txs, rep)
	}
	for _, f := range []string{"rollback", "replay", "overdraft", "sql update line", "sql delete header", "record update", "record delete", "record create", "unbalanced"} {
		if faults[f] == 0 {
			t.Errorf("fault %q never injected", f)
		}
	}
	t.Logf("%d operations, %d transactions, %d lines, %d accounts; faults %v", ops, rep.Transactions, rep.Entries, rep.Accounts, faults)
}

// TestVerifyCatches proves Verify can fail: each corruption (made by
// dropping the triggers first, as only someone with the database file
// could) is reported.
func TestVerifyCatches(t *testing.T) {
	k := testkit.New(t)
	app := k.App
	c := ledger.AccountOfCamello(core.GenerateDefaultRandomId())
	p := core.GenerateDefaultRandomId()
	if _, _, err := ledger.Post(app, ledger.Movement{Kind: ledger.KindAdjustment, Key: "a", Lines: []ledger.Line{{c, 500}, {ledger.AccountPlatformRevenue, -500}}}); err != nil {
		t.Fatal(err)
	}
	if rep, err := ledger.Verify(app); err != nil || !rep.OK() {
		t.Fatalf("sound ledger: %v\n%s", err, rep)
	}
	exec := func(sql string) {
		t.Helper()
		if _, err := app.DB().NewQuery(sql).Execute(); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec("DROP TRIGGER ledger_transactions_balanced")
	exec("DROP TRIGGER ledger_entries_valid")
	exec("DROP TRIGGER ledger_entries_no_update")
	exec("INSERT INTO ledger_entries (tx, account, amount) VALUES ('t00000000000001', 'platform_revenue', 7)")
	exec("INSERT INTO ledger_transactions (id, kind, key, at) VALUES ('t00000000000001', 'adjustment', 'b', 'x')")
	exec("INSERT INTO ledger_entries (tx, account, amount) VALUES ('t00000000000002', 'platform_revenue', 3)")
	exec("INSERT INTO ledger_entries (tx, account, amount) VALUES ('t00000000000003', 'held:" + p + "', 9)")
	exec("INSERT INTO ledger_entries (tx, account, amount) VALUES ('t00000000000003', 'platform_revenue', -9)")
	exec("INSERT INTO ledger_transactions (id, kind, key, at) VALUES ('t00000000000003', 'adjustment', 'c', 'x')")
	exec("UPDATE ledger_entries SET amount = 2.5 WHERE account = '" + c + "'")
	rep, err := ledger.Verify(app)
	if err != nil {
		t.Fatal(err)
	}
	out := rep.String()
	for _, want := range []string{
		"falta el trigger ledger_transactions_balanced", "transacciones descuadradas", "t00000000000001",
		"líneas sin transacción", "no entero", "cuentas del lado equivocado de cero: held:" + p, "no cero",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verify missed %q:\n%s", want, out)
		}
	}
}
