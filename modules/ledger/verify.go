package ledger

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Report is what Verify derived from the rows.
type Report struct {
	Transactions int64
	Entries      int64
	Accounts     int64
	// Total is the sum of every line of written transactions: zero.
	Total int64
	// Balances of the global accounts.
	ClientPayments, PlatformRevenue int64
	// Problems found; none means the ledger is sound.
	Problems []string
}

// OK reports whether the ledger passed every check.
func (r Report) OK() bool { return len(r.Problems) == 0 }

// String renders the report for the CLI.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "transacciones: %d\nlíneas: %d\ncuentas: %d\nsuma total: %d\n", r.Transactions, r.Entries, r.Accounts, r.Total)
	fmt.Fprintf(&b, "%s: %d\n%s: %d\n", AccountClientPayments, r.ClientPayments, AccountPlatformRevenue, r.PlatformRevenue)
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "PROBLEMA: %s\n", p)
	}
	return b.String()
}

// maxListed bounds the ids named per kind of problem.
const maxListed = 10

// Verify re-derives the ledger from its rows: the triggers exist; every
// transaction has two lines or more summing to zero; no line is zero,
// fractional or outside a transaction; every reversal negates the
// transaction it reverses exactly; all lines sum to zero; and no account
// sits on the wrong side of zero (a held or client account in debit,
// client_payments in credit, platform_revenue in debit).
func Verify(app core.App) (Report, error) {
	var r Report
	db := app.DB()
	problem := func(format string, args ...any) { r.Problems = append(r.Problems, fmt.Sprintf(format, args...)) }
	ids := func(q string, params dbx.Params) ([]string, error) {
		var out []string
		err := db.NewQuery(q + fmt.Sprintf(" LIMIT %d", maxListed+1)).Bind(params).Column(&out)
		return out, err
	}
	listed := func(ids []string) string {
		if len(ids) > maxListed {
			return strings.Join(ids[:maxListed], ", ") + ", …"
		}
		return strings.Join(ids, ", ")
	}

	var present []string
	if err := db.NewQuery("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'ledger%'").Column(&present); err != nil {
		return r, err
	}
	for _, t := range Triggers {
		found := false
		for _, p := range present {
			found = found || p == t
		}
		if !found {
			problem("falta el trigger %s (el libro se puede editar)", t)
		}
	}
	if err := db.NewQuery("SELECT COUNT(*) FROM ledger_transactions").Row(&r.Transactions); err != nil {
		return r, err
	}
	if err := db.NewQuery("SELECT COUNT(*) FROM ledger_entries").Row(&r.Entries); err != nil {
		return r, err
	}

	checks := []struct{ what, q string }{
		{"transacciones descuadradas (menos de dos líneas o suma distinta de cero)",
			"SELECT t.id FROM ledger_transactions t LEFT JOIN (SELECT tx, COUNT(*) AS n, SUM(amount) AS s FROM ledger_entries GROUP BY tx) e " +
				"ON e.tx = t.id WHERE e.n IS NULL OR e.n < 2 OR e.s != 0"},
		{"líneas sin transacción", "SELECT e.id FROM ledger_entries e WHERE NOT EXISTS (SELECT 1 FROM ledger_transactions t WHERE t.id = e.tx)"},
		{"líneas con valor cero o no entero", "SELECT id FROM ledger_entries WHERE typeof(amount) != 'integer' OR amount = 0"},
		{"reversiones que no anulan exactamente su transacción",
			"SELECT r.id FROM ledger_transactions r WHERE r.reverses != '' AND (r.kind != 'reversal' " +
				"OR NOT EXISTS (SELECT 1 FROM ledger_transactions o WHERE o.id = r.reverses AND o.kind != 'reversal') " +
				"OR EXISTS (SELECT 1 FROM ledger_entries e WHERE e.tx IN (r.id, r.reverses) GROUP BY e.account HAVING SUM(e.amount) != 0))"},
		{"reversiones sin transacción revertida", "SELECT id FROM ledger_transactions WHERE kind = 'reversal' AND reverses = ''"},
	}
	for _, c := range checks {
		bad, err := ids(c.q, nil)
		if err != nil {
			return r, err
		}
		if len(bad) > 0 {
			problem("%s: %s", c.what, listed(bad))
		}
	}

	var balances []struct {
		Account string `db:"account"`
		Sum     int64  `db:"s"`
	}
	if err := db.NewQuery("SELECT e.account, CAST(SUM(e.amount) AS INTEGER) AS s FROM ledger_entries e " + // fractional lines are reported apart

		"JOIN ledger_transactions t ON t.id = e.tx GROUP BY e.account").All(&balances); err != nil {
		return r, err
	}
	r.Accounts = int64(len(balances))
	var wrong []string
	for _, b := range balances {
		r.Total += b.Sum
		switch b.Account {
		case AccountClientPayments:
			r.ClientPayments = b.Sum
		case AccountPlatformRevenue:
			r.PlatformRevenue = b.Sum
		}
		if !ValidAccount(b.Account) {
			problem("cuenta desconocida %q", b.Account)
		}
		if s := side(b.Account); int64(s)*b.Sum < 0 {
			wrong = append(wrong, fmt.Sprintf("%s=%d", b.Account, b.Sum))
		}
	}
	sort.Strings(wrong)
	if len(wrong) > 0 {
		problem("cuentas del lado equivocado de cero: %s", listed(wrong))
	}
	if r.Total != 0 {
		problem("la suma de todas las cuentas es %d, no cero", r.Total)
	}
	return r, nil
}
