package pii

func plainBlockForms() map[string]func(*byte) uint64 {
	forms := map[string]func(*byte) uint64{"sse2": plainBlockSSE2}
	if plainAVX2 {
		forms["avx2"] = plainBlockAVX2
	}
	return forms
}
