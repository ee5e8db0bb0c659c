package jobs

import (
	"camellos/internal/privacy"
	"camellos/internal/text"
	"camellos/modules/users"

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
	Address      string // "" while jobs have no address; read it with AddressFor
	Place        string // see Place
	ClientID     string
	ProviderID   string // camello id, "" before one is set
	Status       string
}

// AddressFor is the job's address as the user (with its camello id, "" for
// none) may read it: "" unless privacy.JobAddress lets that user see it.
func (s Summary) AddressFor(user *core.Record, camelloID string) string {
	if user == nil {
		return ""
	}
	r := privacy.Relation{
		Admin:     users.Wrap(user).Role() == users.RoleAdmin,
		Client:    s.ClientID == user.Id,
		Provider:  camelloID != "" && s.ProviderID == camelloID,
		JobStatus: s.Status,
	}
	if !privacy.Visible(privacy.JobAddress, r) {
		return ""
	}
	return s.Address
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
			Neighborhood: r.GetString("neighborhood"), Address: r.GetString("address"), Place: Place(r),
			ClientID: r.GetString("client"), ProviderID: r.GetString("provider"), Status: r.GetString("status")}
	}
	return out, nil
}
