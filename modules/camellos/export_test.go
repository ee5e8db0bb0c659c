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

// ListedIDsForTest is a full build's camellos, in the listing's order.
func ListedIDsForTest(app core.App) ([]string, error) {
	l, err := buildListing(app)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(l.order))
	for _, i := range l.order {
		out = append(out, l.str(l.recs[i].id))
	}
	return out, nil
}
