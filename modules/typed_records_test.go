package modules_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/pocketbase/pocketbase/core"
)

// typedCollections maps every typed record of the owners (a type
// embedding core.BaseRecordProxy or *core.Record, found by the scanner) to
// the collection it views. A new typed record adds its line here.
var typedCollections = map[string]string{
	"camellos/modules/users.User":                      "users",
	"camellos/modules/auth.AccountToken":               "account_tokens",
	"camellos/modules/mail.OutboxMail":                 "mail_outbox",
	"camellos/internal/session.SessionRecord":          "sessions",
	"camellos/modules/catalog.CategoryRecord":          "categories",
	"camellos/modules/catalog.ServiceRecord":           "services",
	"camellos/modules/camellos.Camello":                "camellos",
	"camellos/modules/camellos.ReviewRecord":           "reviews",
	"camellos/modules/camellos.ClientReview":           "client_reviews",
	"camellos/modules/places.Place":                    "places",
	"camellos/modules/notifications.PushOutboxRow":     "push_outbox",
	"camellos/modules/jobs.Job":                        "jobs",
	"camellos/modules/appointments.Appointment":        "appointments",
	"camellos/modules/agenda.AvailabilityRecord":       "availability",
	"camellos/modules/agenda.CalendarFeed":             "calendar_feeds",
	"camellos/modules/quotes.Quote":                    "quotes",
	"camellos/modules/messages.MessageRecord":          "messages",
	"camellos/modules/messages.ConversationBlock":      "conversation_blocks",
	"camellos/modules/notifications.Notification":      "notifications",
	"camellos/modules/notifications.PreferencesRecord": "notification_preferences",
	"camellos/modules/notifications.PushSubscription":  "push_subscriptions",
	"camellos/modules/notifications.AppKV":             "app_kv",
	"camellos/modules/legal.DocumentRecord":            "legal_documents",
	"camellos/modules/legal.DocumentVersion":           "legal_document_versions",
	"camellos/modules/legal.Acceptance":                "legal_acceptances",
	"camellos/modules/ledger.TransactionRecord":        "ledger_transactions",
	"camellos/modules/ledger.EntryRecord":              "ledger_entries",
	"camellos/modules/payments.Payment":                "payments",
	"camellos/modules/payments.PolicyRecord":           "camello_policies",
	"camellos/modules/payments.PayoutRecord":           "payouts",
	"camellos/modules/files.QuarantineRecord":          "file_quarantine",
	"camellos/modules/whatsapp.ContactRecord":          "whatsapp_contacts",
	"camellos/modules/whatsapp.OutboxMessage":          "whatsapp_outbox",
}

// viewsThrough are the typed records whose accessors are those of another
// typed record they embed (checked against that one's collection).
var viewsThrough = map[string]string{
	"camellos/modules/camellos.ClientReview": "camellos/modules/camellos.ReviewRecord",
}

// readsAs are the schema field types each string-keyed accessor may read.
var readsAs = map[string][]string{
	"GetString": {core.FieldTypeText, core.FieldTypeSelect, core.FieldTypeRelation, core.FieldTypeEmail,
		core.FieldTypeURL, core.FieldTypeEditor, core.FieldTypeFile, core.FieldTypeDate, core.FieldTypeAutodate},
	"GetBool":            {core.FieldTypeBool},
	"GetInt":             {core.FieldTypeNumber},
	"GetFloat":           {core.FieldTypeNumber},
	"GetDateTime":        {core.FieldTypeDate, core.FieldTypeAutodate},
	"GetStringSlice":     {core.FieldTypeSelect, core.FieldTypeRelation, core.FieldTypeFile, core.FieldTypeJSON},
	"UnmarshalJSONField": {core.FieldTypeJSON},
	"GetGeoPoint":        {core.FieldTypeGeoPoint},
}

// typedProblems checks the typed views against schema: every typed record
// is mapped to a collection of its package, every collection has one,
// every accessor's key (a use through a typed record) is a field of the
// record's collection with a type the accessor reads, and every field
// constant of an owner names a field of one of its collections.
func typedProblems(uses []keyUse, typed []typedRecord, consts []fieldConst, schema map[string]map[string]string) []string {
	var out []string
	viewed := map[string]bool{}
	for _, tr := range typed {
		key := tr.pkg + "." + tr.name
		col, ok := typedCollections[key]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: a typed record with no collection in typedCollections", key))
		case owners[col] != tr.pkg:
			out = append(out, fmt.Sprintf("%s views %s, which %s owns", key, col, owners[col]))
		default:
			viewed[col] = true
		}
	}
	for col := range owners {
		if !viewed[col] && schema[col] != nil {
			out = append(out, fmt.Sprintf("%s: no typed record (its owner %s declares none)", col, owners[col]))
		}
	}
	for _, u := range uses {
		col := typedCollections[u.typed]
		if u.typed == "" || col == "" || !u.constant {
			continue
		}
		typ, ok := schema[col][u.key]
		if !ok {
			out = append(out, fmt.Sprintf("%s: %s reads %q, no field of %s", u.at, u.typed, u.key, col))
			continue
		}
		if allowed, listed := readsAs[u.method]; listed && !contains(allowed, typ) {
			out = append(out, fmt.Sprintf("%s: %s.%s is a %s field, %s reads it with %s", u.at, col, u.key, typ, u.typed, u.method))
		}
	}
	own := ownedBy()
	for _, c := range consts {
		cols := own[c.pkg]
		if len(cols) == 0 {
			continue
		}
		found := false
		for _, col := range cols {
			if _, ok := schema[col][c.value]; ok {
				found = true
			}
		}
		if !found {
			out = append(out, fmt.Sprintf("%s.%s = %q names no field of %s", c.pkg, c.name, c.value, strings.Join(cols, ", ")))
		}
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestTypedRecordsMatchTheSchema checks every owner's typed view (typed
// records, their accessors and the field constants, all found by the
// scanner: a new accessor cannot escape) against the collections the
// migrations build.
func TestTypedRecordsMatchTheSchema(t *testing.T) {
	uses, typed := scanAll(t)
	schema := schemaOf(t)
	if len(typed) < len(typedCollections) || len(allConsts) < 50 {
		t.Fatalf("found %d typed records and %d field constants: the scanner is broken", len(typed), len(allConsts))
	}
	checked := map[string]int{}
	for _, u := range uses {
		if u.typed != "" && u.constant {
			checked[u.typed]++
		}
	}
	for key := range typedCollections {
		if checked[key] == 0 && viewsThrough[key] == "" {
			t.Errorf("%s: no accessor of it was seen: the scanner is broken or the type is gone", key)
		}
	}
	for _, p := range typedProblems(uses, typed, allConsts, schema) {
		t.Error(p)
	}
	// Planted: a wrong name, a wrong type, an unmapped typed record and a
	// wrong constant are each seen.
	planted := []struct {
		name   string
		uses   []keyUse
		typed  []typedRecord
		consts []fieldConst
	}{
		{"wrong name", []keyUse{{at: "planted.go:1", method: "GetString", key: "nmae", constant: true, typed: "camellos/modules/users.User"}}, nil, nil},
		{"wrong type", []keyUse{{at: "planted.go:1", method: "GetBool", key: "name", constant: true, typed: "camellos/modules/users.User"}}, nil, nil},
		{"unmapped typed record", nil, []typedRecord{{"camellos/modules/jobs", "Planted"}}, nil},
		{"wrong constant", nil, nil, []fieldConst{{"camellos/modules/jobs", "FieldPlanted", "plnated"}}},
	}
	base := typedProblems(uses, typed, allConsts, schema)
	for _, p := range planted {
		got := typedProblems(append(append([]keyUse{}, uses...), p.uses...), append(append([]typedRecord{}, typed...), p.typed...),
			append(append([]fieldConst{}, allConsts...), p.consts...), schema)
		if len(got) != len(base)+1 {
			t.Errorf("planted %s: want one more problem, got %q", p.name, got)
		}
	}
}
