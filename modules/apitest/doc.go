// Package apitest holds the tests of the modules that are tested only from
// outside, over HTTP through internal/testkit (and their exported
// functions): auth, events, legal, mail, metrics, ops, payments,
// registration, seed and whatsapp. Each file is named after its module
// (auth_abuse_test.go was modules/auth/abuse_test.go).
//
// They share one test binary because every test binary of this module
// links all of PocketBase: about 2 s of CPU a link, which `go test ./...`
// paid once per package (ten links for these tests, one now). Run one
// module's tests by name: `go test ./modules/apitest -run 'Payment|Payout'`.
// A module whose tests need its unexported names, or vet's view of its
// own types (ledger's unkeyed Line literals), keeps them in its own
// directory.
package apitest
