package pb_migrations

import (
	"fmt"
	"strings"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// appointmentsUncounted are the appointments columns whose change alone
// does not count as a change of the table for the projections (issue 27):
// the reminder sweep's claim writes only these two, once per due
// appointment (100,000 in one sweep), and no projection shows either. The
// table's UPDATE change counter (migration 1764200000,
// internal/readmodel) becomes AFTER UPDATE OF every other column, so the
// claim no longer runs the counter's UPDATE once per row, while a change
// of any other column, by any process, still counts.
var appointmentsUncounted = []string{"reminderSentAt", "updated"}

// appointmentsCounterTrigger is the counter's UPDATE trigger on the
// appointments table: the name internal/readmodel gives it (which keeps a
// present trigger as it is).
const appointmentsCounterTrigger = "change_counter_appointments_UPDATE"

func init() {
	m.Register(func(app core.App) error {
		var cols []string
		if err := app.DB().NewQuery("SELECT name FROM pragma_table_info('appointments')").Column(&cols); err != nil {
			return err
		}
		skip := map[string]bool{}
		for _, c := range appointmentsUncounted {
			skip[c] = true
		}
		var counted []string
		for _, c := range cols {
			if !skip[c] {
				counted = append(counted, "`"+c+"`")
			}
		}
		if len(counted) == 0 {
			return fmt.Errorf("appointments: no column to count")
		}
		return replaceTrigger(app, fmt.Sprintf("CREATE TRIGGER %s AFTER UPDATE OF %s ON appointments FOR EACH ROW BEGIN "+
			"UPDATE change_counters SET n = n + 1 WHERE tbl = 'appointments'; END", appointmentsCounterTrigger, strings.Join(counted, ", ")))
	}, func(app core.App) error {
		return replaceTrigger(app, "CREATE TRIGGER "+appointmentsCounterTrigger+" AFTER UPDATE ON appointments FOR EACH ROW BEGIN "+
			"UPDATE change_counters SET n = n + 1 WHERE tbl = 'appointments'; END")
	})
}

// replaceTrigger drops the appointments counter's UPDATE trigger and
// creates it again with create.
func replaceTrigger(app core.App, create string) error {
	if _, err := app.DB().NewQuery("DROP TRIGGER IF EXISTS " + appointmentsCounterTrigger).Execute(); err != nil {
		return err
	}
	_, err := app.DB().NewQuery(create).Execute()
	return err
}
