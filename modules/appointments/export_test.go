package appointments

// ClaimListedQuery exposes the claim query to the external tests (its
// query plan is checked).
const ClaimListedQuery = claimListed
