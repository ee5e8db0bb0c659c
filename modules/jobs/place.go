package jobs

import (
	"camellos/internal/text"

	"github.com/pocketbase/pocketbase/core"
)

// Place is where a job happens, as the agenda's travel rule compares it:
// its city and neighbourhood, case- and accent-folded; "" (unknown) when
// the job has no neighbourhood.
func Place(job *core.Record) string {
	n := text.Fold(job.GetString("neighborhood"))
	if n == "" {
		return ""
	}
	return text.Fold(job.GetString("city")) + "|" + n
}

// Summary is what the agenda shows of a job beside its appointments.
type Summary struct {
	Title        string
	City         string
	Neighborhood string
	Address      string // "" while jobs have no address
	Place        string // see Place
}

// SummariesOf loads the jobs' summaries by id, in one query.
func SummariesOf(app core.App, ids []string) (map[string]Summary, error) {
	out := make(map[string]Summary, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	recs, err := app.FindRecordsByIds(Collection, ids)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		out[r.Id] = Summary{Title: r.GetString("title"), City: r.GetString("city"),
			Neighborhood: r.GetString("neighborhood"), Address: r.GetString("address"), Place: Place(r)}
	}
	return out, nil
}
