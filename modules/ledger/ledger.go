// Package ledger is the platform's double-entry ledger (issue 23). It owns
// ledger_transactions and ledger_entries: every movement of money (charge,
// hold, release, commission, refund, payout, adjustment) is one balanced
// transaction between named accounts, in integer COP pesos. Nothing is
// ever updated or deleted: a mistake is undone by a reversal, a new
// transaction with every line negated.
//
// Amounts are signed: positive is a debit, negative a credit; the lines of
// a transaction sum to zero, so every account's balance is derived by
// summing its lines and the sum over all accounts is zero.
//
// Accounts (AccountOf… build the per-party names):
//
//	client_payments   asset: money clients paid in, sitting at the gateway or the bank (debit-normal)
//	client:<user>     what the platform owes a client for a payment received but not yet held (credit-normal)
//	held:<payment>    held funds of one payment, until the work is done (credit-normal)
//	camello:<id>      a camello's balance: earned and not paid out (credit); negative when it owes commission on cash work
//	platform_revenue  the platform's commission (credit-normal)
//
// The rules are enforced three times: Post checks a movement before
// writing it; SQLite triggers (pb_migrations/1764160000_ledger.go) refuse
// an update, a delete, a zero or non-integer amount, a line added to a
// written transaction and an unbalanced transaction, whoever writes; and
// the record hooks refuse every write through records (dashboard, generic
// API). Verify re-derives everything from the rows (`camellos ledger verify`).
package ledger

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Collections of the ledger.
const (
	CollectionTransactions = "ledger_transactions"
	CollectionEntries      = "ledger_entries"
)

// Kinds of movement.
const (
	KindCharge     = "charge"     // a client's payment arrives: client_payments → client:<user>
	KindHold       = "hold"       // the payment is held for the job: client:<user> → held:<payment>
	KindRelease    = "release"    // the work is done: held:<payment> → camello:<id>
	KindCommission = "commission" // the platform's cut: camello:<id> → platform_revenue
	KindRefund     = "refund"     // money goes back to the client: held:<payment> → client_payments
	KindPayout     = "payout"     // a camello is paid: camello:<id> → client_payments
	KindAdjustment = "adjustment" // an admin's correction between two accounts
	KindReversal   = "reversal"   // undoes one transaction (Reverse)
)

// Kinds lists every kind of movement.
var Kinds = []string{KindCharge, KindHold, KindRelease, KindCommission, KindRefund, KindPayout, KindAdjustment, KindReversal}

// Global accounts.
const (
	AccountClientPayments  = "client_payments"
	AccountPlatformRevenue = "platform_revenue"
)

// AccountOfClient is the account of what the platform owes a client user.
func AccountOfClient(userID string) string { return "client:" + userID }

// AccountOfHeld is the held funds of one payment.
func AccountOfHeld(paymentID string) string { return "held:" + paymentID }

// AccountOfCamello is a camello's balance.
func AccountOfCamello(camelloID string) string { return "camello:" + camelloID }

// Triggers are the SQLite triggers that keep the ledger append-only and
// balanced (created by the migration; Verify fails when one is missing).
var Triggers = []string{
	"ledger_transactions_no_update", "ledger_transactions_no_delete",
	"ledger_entries_no_update", "ledger_entries_no_delete",
	"ledger_entries_valid", "ledger_transactions_balanced",
}

var accountPattern = regexp.MustCompile(`^(client_payments|platform_revenue|(client|held|camello):[a-z0-9]{15})$`)

// ValidAccount reports whether name is a ledger account.
func ValidAccount(name string) bool { return accountPattern.MatchString(name) }

// side is the sign an account's balance may have: +1 never negative
// (debit-normal), -1 never positive (credit-normal), 0 either.
func side(account string) int {
	switch {
	case account == AccountClientPayments:
		return 1
	case account == AccountPlatformRevenue,
		strings.HasPrefix(account, "client:"), strings.HasPrefix(account, "held:"):
		return -1
	}
	return 0
}

// MaxLineAmount bounds one line: far above any job (quotes stop at 10^8
// pesos), far below where sums of int64 could overflow.
const MaxLineAmount = 1_000_000_000_000

// Line is one entry of a movement: a signed amount of pesos on an account
// (positive debit, negative credit).
type Line struct {
	Account string
	Amount  int64
}

// Movement is a transaction to write: its lines must sum to zero.
type Movement struct {
	Kind string
	// Key makes the movement happen at most once: a second Post with the
	// same key writes nothing and answers the first one's id.
	Key  string
	Ref  string // what it is about (a payment id, a payout batch)
	Memo string
	// Lines are two or more, non-zero, summing to zero.
	Lines []Line
	// reverses is the id of the transaction a reversal undoes.
	reverses string
}

// Errors of Post and Reverse. They are programming or domain errors (the
// callers compute the amounts), never user input.
var (
	ErrUnbalanced  = errors.New("ledger: a transaction needs two lines or more, non-zero, summing to zero")
	ErrAccount     = errors.New("ledger: unknown account")
	ErrKind        = errors.New("ledger: unknown kind")
	ErrOverdrawn   = errors.New("ledger: the movement would take an account past zero")
	ErrReversed    = errors.New("ledger: the transaction is already reversed")
	ErrNotReversal = errors.New("ledger: a reversal is not reversed again; post a new movement")
	ErrNoKey       = errors.New("ledger: a movement needs its idempotency key")
)

func (m Movement) check() error {
	known := false
	for _, k := range Kinds {
		known = known || k == m.Kind
	}
	if !known {
		return fmt.Errorf("%w: %q", ErrKind, m.Kind)
	}
	if strings.TrimSpace(m.Key) == "" || len(m.Key) > 200 {
		return ErrNoKey
	}
	if len(m.Lines) < 2 {
		return ErrUnbalanced
	}
	var sum int64
	for _, l := range m.Lines {
		if !ValidAccount(l.Account) {
			return fmt.Errorf("%w: %q", ErrAccount, l.Account)
		}
		if l.Amount == 0 || l.Amount > MaxLineAmount || l.Amount < -MaxLineAmount {
			return ErrUnbalanced
		}
		sum += l.Amount
	}
	if sum != 0 {
		return ErrUnbalanced
	}
	return nil
}

// Post writes m with txApp, the caller's transaction (or the app: then the
// movement is one transaction of its own). A movement whose key was already
// written is not written again: Post answers the first one's id and
// fresh=false. A movement that would take an account past zero on the
// wrong side (releasing more than was held, paying out more than came in,
// giving back more revenue than was earned) is refused with ErrOverdrawn
// and nothing is written.
func Post(txApp core.App, m Movement) (id string, fresh bool, err error) {
	if err := m.check(); err != nil {
		return "", false, err
	}
	if txApp.TxInfo() == nil {
		err = txApp.RunInTransaction(func(tx core.App) error {
			id, fresh, err = post(tx, m)
			return err
		})
		return id, fresh, err
	}
	return post(txApp, m)
}

func post(txApp core.App, m Movement) (string, bool, error) {
	db := txApp.DB()
	var existing string
	err := db.NewQuery("SELECT id FROM ledger_transactions WHERE key = {:key}").
		Bind(dbx.Params{"key": m.Key}).Row(&existing)
	if err == nil {
		return existing, false, nil
	}
	// Accounts that may not cross zero are checked against their balance
	// as of this transaction.
	delta := map[string]int64{}
	for _, l := range m.Lines {
		delta[l.Account] += l.Amount
	}
	for acc, d := range delta {
		s := side(acc)
		if s == 0 || int64(s)*d >= 0 {
			continue // free either way, or moving away from zero
		}
		// A line toward zero: the account's balance is summed (an index range
		// of its lines; for the two global accounts that grows with the
		// business — a running balance is the optimisation to come).
		bal, err := Balance(txApp, acc)
		if err != nil {
			return "", false, err
		}
		if after := bal + d; int64(s)*after < 0 {
			return "", false, fmt.Errorf("%w: %s %d → %d", ErrOverdrawn, acc, bal, after)
		}
	}
	id := core.GenerateDefaultRandomId()
	for _, l := range m.Lines {
		if _, err := db.NewQuery("INSERT INTO ledger_entries (tx, account, amount) VALUES ({:tx}, {:account}, {:amount})").
			Bind(dbx.Params{"tx": id, "account": l.Account, "amount": l.Amount}).Execute(); err != nil {
			return "", false, err
		}
	}
	_, err = db.NewQuery("INSERT INTO ledger_transactions (id, kind, key, ref, reverses, memo, at) " +
		"VALUES ({:id}, {:kind}, {:key}, {:ref}, {:reverses}, {:memo}, {:at})").
		Bind(dbx.Params{"id": id, "kind": m.Kind, "key": m.Key, "ref": m.Ref, "reverses": m.reverses,
			"memo": m.Memo, "at": time.Now().UTC().Format("2006-01-02 15:04:05.000Z")}).Execute()
	if err != nil {
		return "", false, err
	}
	return id, true, nil
}

// Reverse writes the reversal of transaction txID (every line negated),
// keyed by key. A transaction is reversed at most once (a unique index
// backs this); a reversal is never reversed.
func Reverse(txApp core.App, txID, key, memo string) (id string, fresh bool, err error) {
	run := func(tx core.App) error {
		var orig struct {
			Kind     string `db:"kind"`
			Ref      string `db:"ref"`
			Reverses string `db:"reverses"`
		}
		if err := tx.DB().NewQuery("SELECT kind, ref, reverses FROM ledger_transactions WHERE id = {:id}").
			Bind(dbx.Params{"id": txID}).One(&orig); err != nil {
			return fmt.Errorf("ledger: transaction %q: %w", txID, err)
		}
		if orig.Kind == KindReversal {
			return ErrNotReversal
		}
		var prior string
		if err := tx.DB().NewQuery("SELECT key FROM ledger_transactions WHERE reverses = {:id}").
			Bind(dbx.Params{"id": txID}).Row(&prior); err == nil && prior != key {
			return ErrReversed
		}
		lines, err := Lines(tx, txID)
		if err != nil {
			return err
		}
		for i := range lines {
			lines[i].Amount = -lines[i].Amount
		}
		id, fresh, err = post(tx, Movement{Kind: KindReversal, Key: key, Ref: orig.Ref, Memo: memo, Lines: lines, reverses: txID})
		return err
	}
	if strings.TrimSpace(key) == "" {
		return "", false, ErrNoKey
	}
	if txApp.TxInfo() == nil {
		err = txApp.RunInTransaction(run)
	} else {
		err = run(txApp)
	}
	return id, fresh, err
}

// Lines are the lines of transaction txID, in the order written.
func Lines(app core.App, txID string) ([]Line, error) {
	var rows []struct {
		Account string `db:"account"`
		Amount  int64  `db:"amount"`
	}
	if err := app.DB().NewQuery("SELECT account, amount FROM ledger_entries WHERE tx = {:tx} ORDER BY rowid").
		Bind(dbx.Params{"tx": txID}).All(&rows); err != nil {
		return nil, err
	}
	out := make([]Line, len(rows))
	for i, r := range rows {
		out[i] = Line{Account: r.Account, Amount: r.Amount}
	}
	return out, nil
}

// Balance is an account's balance: the sum of its lines of written
// transactions (positive debit, negative credit).
func Balance(app core.App, account string) (int64, error) {
	var sum int64
	err := app.DB().NewQuery("SELECT COALESCE(SUM(e.amount), 0) FROM ledger_entries e " +
		"JOIN ledger_transactions t ON t.id = e.tx WHERE e.account = {:account}").
		Bind(dbx.Params{"account": account}).Row(&sum)
	return sum, err
}

// Transaction is a written transaction, as History lists it.
type Transaction struct {
	ID       string `db:"id" json:"id"`
	Kind     string `db:"kind" json:"kind"`
	Ref      string `db:"ref" json:"ref"`
	Reverses string `db:"reverses" json:"reverses,omitempty"`
	Memo     string `db:"memo" json:"memo,omitempty"`
	At       string `db:"at" json:"at"`
	// Amount is the transaction's line on the account asked for.
	Amount int64 `db:"amount" json:"amount"`
}

// History lists the transactions touching account, newest first.
func History(app core.App, account string, limit, offset int) ([]Transaction, error) {
	out := []Transaction{}
	err := app.DB().NewQuery("SELECT t.id, t.kind, t.ref, t.reverses, t.memo, t.at, SUM(e.amount) AS amount " +
		"FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.tx WHERE e.account = {:account} " +
		"GROUP BY t.id ORDER BY t.at DESC, t.rowid DESC LIMIT {:limit} OFFSET {:offset}").
		Bind(dbx.Params{"account": account, "limit": limit, "offset": offset}).All(&out)
	return out, err
}

// ByRef lists the transactions about ref (a payment id), oldest first;
// each Amount is the transaction's size (the sum of its debits).
func ByRef(app core.App, ref string) ([]Transaction, error) {
	out := []Transaction{}
	err := app.DB().NewQuery("SELECT t.id, t.kind, t.ref, t.reverses, t.memo, t.at, " +
		"(SELECT COALESCE(SUM(e.amount), 0) FROM ledger_entries e WHERE e.tx = t.id AND e.amount > 0) AS amount " +
		"FROM ledger_transactions t WHERE t.ref = {:ref} ORDER BY t.rowid").Bind(dbx.Params{"ref": ref}).All(&out)
	return out, err
}

// CountOf is how many transactions touch account.
func CountOf(app core.App, account string) (int64, error) {
	var n int64
	err := app.DB().NewQuery("SELECT COUNT(DISTINCT e.tx) FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.tx " +
		"WHERE e.account = {:account}").Bind(dbx.Params{"account": account}).Row(&n)
	return n, err
}

// MonthKind is what one kind of movement did to an account in one month
// (the sum of its lines).
type MonthKind struct {
	Month  string `db:"month" json:"month"` // YYYY-MM (UTC)
	Kind   string `db:"kind" json:"kind"`
	Amount int64  `db:"amount" json:"amount"`
}

// Monthly sums account's lines by month (UTC) and kind, newest month first.
func Monthly(app core.App, account string) ([]MonthKind, error) {
	out := []MonthKind{}
	err := app.DB().NewQuery("SELECT substr(t.at, 1, 7) AS month, t.kind, SUM(e.amount) AS amount " +
		"FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.tx WHERE e.account = {:account} " +
		"GROUP BY month, t.kind ORDER BY month DESC, t.kind").Bind(dbx.Params{"account": account}).All(&out)
	return out, err
}

// CamelloBalance is one camello account's balance.
type CamelloBalance struct {
	CamelloID string `db:"camello"`
	Balance   int64  `db:"balance"`
}

// CamellosOwed lists the camello accounts the platform owes money to
// (a credit balance: earned and not paid out), largest first, at most limit.
func CamellosOwed(app core.App, limit int) ([]CamelloBalance, error) {
	out := []CamelloBalance{}
	err := app.DB().NewQuery("SELECT substr(e.account, 9) AS camello, -SUM(e.amount) AS balance " +
		"FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.tx WHERE e.account LIKE 'camello:%' " +
		"GROUP BY e.account HAVING SUM(e.amount) < 0 ORDER BY balance DESC, camello LIMIT {:limit}").
		Bind(dbx.Params{"limit": limit}).All(&out)
	return out, err
}
