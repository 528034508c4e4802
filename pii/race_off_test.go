//go:build !race

package pii

const raceEnabled = false
