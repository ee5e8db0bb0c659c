package jobs_test

import (
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/jobs"
	"camellos/modules/users"
)

// BenchmarkSendReminders measures one sweep over b.N due appointments
// (go test -run x -bench SendReminders -benchtime 20000x ./modules/jobs/).
func BenchmarkSendReminders(b *testing.B) {
	k := testkit.New(b)
	client := k.CreateUser(users.RoleClient)
	_, camello, _ := k.CreateCamello()
	job := k.CreateJob(testkit.JobOpts{Client: client, Provider: camello, Status: "ASIGNADO"})
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	bulkAppointmentsTB(b, k, job, now.Add(time.Second), b.N, 86400*time.Second/time.Duration(b.N+1))
	b.ResetTimer()
	sent, err := jobs.SendReminders(k.App, now)
	if err != nil || sent != b.N {
		b.Fatalf("sent %d of %d: %v", sent, b.N, err)
	}
}
