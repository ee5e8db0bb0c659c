package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// The double-entry ledger (issue 23), owned by modules/ledger.
//
//   - ledger_transactions: one row per balanced movement (kind, the
//     idempotency key that makes a movement happen at most once, the
//     reference it is about, the transaction it reverses).
//   - ledger_entries: the lines of a transaction, a signed integer amount of
//     COP pesos each (positive debit, negative credit) on a named account.
//
// The ledger is append-only, enforced below the application by triggers
// (ledgerTriggers; modules/ledger.Triggers names them): no UPDATE and no DELETE of either table, no entry with
// a zero or non-integer amount, no entry added to a transaction already
// written, and a transaction is written after its entries only when they
// are at least two and sum to zero. The collections have no API rules
// (superusers only) and the record hooks of modules/ledger refuse every
// record write, so the dashboard cannot edit them either.
//
// A later migration that changes these collections may make PocketBase
// rebuild their tables, which drops the triggers: it must run
// ledgerTriggers again (`camellos ledger verify` fails when one is
// missing).
func init() {
	m.Register(func(app core.App) error {
		txs := core.NewBaseCollection("ledger_transactions")
		txs.Fields.Add(
			&core.TextField{Name: "kind", Required: true, Max: 20},
			&core.TextField{Name: "key", Required: true, Max: 200},
			&core.TextField{Name: "ref", Max: 100},
			&core.TextField{Name: "reverses", Max: 15},
			&core.TextField{Name: "memo", Max: 500},
			&core.TextField{Name: "at", Required: true, Max: 30},
		)
		txs.AddIndex("idx_ledger_transactions_key", true, "key", "")
		txs.AddIndex("idx_ledger_transactions_reverses", true, "reverses", "reverses != ''")
		txs.AddIndex("idx_ledger_transactions_ref", false, "ref", "")
		if err := app.Save(txs); err != nil {
			return err
		}
		entries := core.NewBaseCollection("ledger_entries")
		entries.Fields.Add(
			&core.TextField{Name: "tx", Required: true, Max: 15},
			&core.TextField{Name: "account", Required: true, Max: 100},
			&core.NumberField{Name: "amount", Required: true, OnlyInt: true},
		)
		entries.AddIndex("idx_ledger_entries_tx", false, "tx", "")
		entries.AddIndex("idx_ledger_entries_account", false, "account", "")
		if err := app.Save(entries); err != nil {
			return err
		}
		return ledgerTriggers(app)
	}, func(app core.App) error {
		for _, name := range []string{"ledger_entries", "ledger_transactions"} {
			c, err := app.FindCollectionByNameOrId(name)
			if err != nil {
				continue
			}
			if err := app.Delete(c); err != nil {
				return err
			}
		}
		return nil
	})
}

// ledgerTriggers (re)creates the ledger's triggers.
func ledgerTriggers(app core.App) error {
	stmts := []string{
		`DROP TRIGGER IF EXISTS ledger_transactions_no_update`,
		`CREATE TRIGGER ledger_transactions_no_update BEFORE UPDATE ON ledger_transactions
		 BEGIN SELECT RAISE(ABORT, 'ledger: append-only, reverse instead of updating'); END`,
		`DROP TRIGGER IF EXISTS ledger_transactions_no_delete`,
		`CREATE TRIGGER ledger_transactions_no_delete BEFORE DELETE ON ledger_transactions
		 BEGIN SELECT RAISE(ABORT, 'ledger: append-only, reverse instead of deleting'); END`,
		`DROP TRIGGER IF EXISTS ledger_entries_no_update`,
		`CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
		 BEGIN SELECT RAISE(ABORT, 'ledger: append-only, reverse instead of updating'); END`,
		`DROP TRIGGER IF EXISTS ledger_entries_no_delete`,
		`CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
		 BEGIN SELECT RAISE(ABORT, 'ledger: append-only, reverse instead of deleting'); END`,
		`DROP TRIGGER IF EXISTS ledger_entries_valid`,
		`CREATE TRIGGER ledger_entries_valid BEFORE INSERT ON ledger_entries
		 BEGIN
		   SELECT RAISE(ABORT, 'ledger: an amount is a non-zero integer of pesos')
		    WHERE typeof(NEW.amount) != 'integer' OR NEW.amount = 0;
		   SELECT RAISE(ABORT, 'ledger: an entry needs an account and a transaction')
		    WHERE NEW.account = '' OR NEW.tx = '';
		   SELECT RAISE(ABORT, 'ledger: the transaction is already written')
		    WHERE EXISTS (SELECT 1 FROM ledger_transactions WHERE id = NEW.tx);
		 END`,
		`DROP TRIGGER IF EXISTS ledger_transactions_balanced`,
		`CREATE TRIGGER ledger_transactions_balanced BEFORE INSERT ON ledger_transactions
		 BEGIN
		   SELECT RAISE(ABORT, 'ledger: a transaction needs two entries or more summing to zero')
		    WHERE (SELECT COUNT(*) FROM ledger_entries WHERE tx = NEW.id) < 2
		       OR (SELECT SUM(amount) FROM ledger_entries WHERE tx = NEW.id) != 0;
		 END`,
	}
	for _, s := range stmts {
		if _, err := app.DB().NewQuery(s).Execute(); err != nil {
			return err
		}
	}
	return nil
}
