package jobs

// ClaimReminders exposes the claim query to the external tests (its
// query plan is checked).
const ClaimReminders = claimReminders
