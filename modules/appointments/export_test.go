package appointments

// ClaimDueQuery exposes the claim query to the external tests (its query
// plan is checked).
const ClaimDueQuery = claimDue
