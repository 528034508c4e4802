//go:build !race

package handshake

const raceEnabled = false
