package camellos

import (
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Payee is what a bank file needs of a camello (payments' payouts): its
// name, document and phone, private fields the caller shows per
// privacy's table.
type Payee struct {
	ID         string `db:"id"`
	Name       string `db:"name"`
	DocumentID string `db:"documentId"`
	Phone      string `db:"phone"`
}

// Payees reads the payees among ids, by id, in one query (an id not found
// is absent).
func Payees(app core.App, ids []any) (map[string]Payee, error) {
	out := map[string]Payee{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []Payee
	err := app.DB().Select("id", FieldName, FieldDocumentID, FieldPhone).From(Collection).Where(dbx.In("id", ids...)).All(&rows)
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, err
}

// StatusAndZone reads a camello's status and time zone (the agenda's
// slots); sql.ErrNoRows when there is no such camello.
func StatusAndZone(app core.App, id string) (status, timezone string, err error) {
	var row struct {
		Status   string `db:"status"`
		Timezone string `db:"timezone"`
	}
	err = app.DB().Select(FieldStatus, FieldTimezone).From(Collection).Where(dbx.HashExp{"id": id}).Limit(1).One(&row)
	return row.Status, row.Timezone, err
}

// ReviewedSQL is the SQL expression "the job whose id is jobExpr has its
// review" (idx_reviews_job): how the open board's query reads it in the
// same statement. The owner writes the text.
func ReviewedSQL(jobExpr string) string {
	return "EXISTS (SELECT 1 FROM " + ReviewsCollection + " r WHERE r.job = " + jobExpr + ")"
}
