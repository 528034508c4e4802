//go:build !amd64

package pii

func plainBlockForms() map[string]func(*byte) uint64 {
	return map[string]func(*byte) uint64{"go": plainBlock}
}
