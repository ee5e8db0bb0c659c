package privacy

import "testing"

// TestTable: every row says who sees the field and where it is applied,
// nobody reads an unknown field, and an anonymous reader with no relation
// reads nothing but the photo of a public camello.
func TestTable(t *testing.T) {
	for f, r := range Table {
		if r.Who == "" || len(r.Carriers) == 0 || r.Sees == nil {
			t.Errorf("%s: incomplete row", f)
		}
		if Visible(f, Relation{}) {
			t.Errorf("%s: visible to a reader with no relation", f)
		}
	}
	if Visible("job.secret", Relation{Admin: true, Self: true}) {
		t.Error("an unknown field is visible")
	}
	if !Visible(CamelloPhoto, Relation{Public: true}) {
		t.Error("the photo of a public camello is hidden")
	}
	// The address, state by state, for the job's camello.
	for status, want := range map[string]bool{"PENDIENTE": false, "ASIGNADO": true, "EN_PROGRESO": true, "COMPLETADO": true, "CANCELADO": false} {
		if got := Visible(JobAddress, Relation{Provider: true, JobStatus: status}); got != want {
			t.Errorf("address to the job's camello in %s = %v, want %v", status, got, want)
		}
		if !Visible(JobAddress, Relation{Client: true, JobStatus: status}) || !Visible(JobAddress, Relation{Admin: true, JobStatus: status}) {
			t.Errorf("address hidden from the client or an admin in %s", status)
		}
	}
}
