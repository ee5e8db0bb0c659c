package camellos

import "github.com/pocketbase/pocketbase/core"

// BuildListingForBench is a full build of the listing index (the cold
// build) and its number of entries: for the benchmarks of camellos_test.
func BuildListingForBench(app core.App) (int, error) {
	l, err := buildListing(app)
	if err != nil {
		return 0, err
	}
	return len(l.order), nil
}
