//go:build race

package handshake

// raceEnabled reports a build with the race detector, whose instrumentation
// distorts heap measurements.
const raceEnabled = true
