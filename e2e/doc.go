// Package e2e holds the tests that run moltgate as real processes: gateway
// processes built from cmd/moltgate, on loopback, each launching the echo
// agent, exchanging calls across organisations, and attacked, flooded,
// killed and shut down while they do.
//
// The tests build the binaries once (go build) and take a few dozen seconds;
// go test -short skips them.
package e2e
