//go:build race

package gateway

// raceEnabled: the race detector deepens every frame, so stack sizes mean
// nothing under it.
const raceEnabled = true
