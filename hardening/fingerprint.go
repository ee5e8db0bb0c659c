package hardening

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// DomainTables are the tables whose content a refused request must leave
// untouched.
var DomainTables = []string{
	"users", "sessions", "categories", "services", "camellos", "jobs", "reviews", "appointments",
	"availability", "calendar_feeds", "notifications", "notification_preferences", "push_subscriptions",
	"legal_documents", "legal_document_versions", "legal_acceptances", "quotes", "messages",
}

// Fingerprint hashes every row of the domain tables, per table, so a
// changed record shows as a changed table.
func Fingerprint(app core.App) (map[string]string, error) {
	out := make(map[string]string, len(DomainTables))
	for _, table := range DomainTables {
		rows, err := app.DB().NewQuery("SELECT * FROM {{" + table + "}} ORDER BY rowid").Rows()
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		for rows.Next() {
			row := dbx.NullStringMap{}
			if err := rows.ScanMap(row); err != nil {
				rows.Close()
				return nil, err
			}
			keys := make([]string, 0, len(row))
			for k := range row {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				h.Write([]byte(k))
				h.Write([]byte{0})
				if row[k].Valid {
					h.Write([]byte(row[k].String))
				}
				h.Write([]byte{1})
			}
			h.Write([]byte{2})
		}
		rows.Close()
		out[table] = hex.EncodeToString(h.Sum(nil))
	}
	return out, nil
}

// Changed lists the tables whose fingerprints differ.
func Changed(before, after map[string]string) []string {
	var out []string
	for _, t := range DomainTables {
		if before[t] != after[t] {
			out = append(out, t)
		}
	}
	return out
}
