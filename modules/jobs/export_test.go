package jobs

// ReminderBatch is how many appointments one sweep transaction claims
// (tests only).
const ReminderBatch = reminderBatch
