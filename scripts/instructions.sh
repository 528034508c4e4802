#!/usr/bin/env bash
# Counts the instructions per operation of Go benchmarks with callgrind, so
# that ratios between them can be read on a machine that is busy with other
# work (instruction counts do not depend on load; wall time does).
#
# usage: scripts/instructions.sh PACKAGE BENCHMARK...
#   e.g. scripts/instructions.sh ./crypto RawEd25519SignVerify MessageSignVerify SealOpen
#
# Each benchmark runs twice, for 500 and for 1500 iterations; the difference
# divided by 1000 is the cost of one iteration, free of set-up costs.
set -euo pipefail
pkg=$1; shift
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go test -c -o "$tmp/bench.test" "$pkg"
count() { # benchmark iterations
	# callgrind now and then aborts on an assertion about a signal the Go
	# runtime received (threads.c: vgCallgrind_post_signal); run again.
	for attempt in 1 2 3 4 5 6; do
		if GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/out" \
			"$tmp/bench.test" -test.run '^$' -test.bench "^Benchmark$1\$" -test.benchtime "${2}x" -test.count 1 \
			>/dev/null 2>"$tmp/err" && grep -q 'refs:' "$tmp/err"; then
			grep -o 'refs: *[0-9,]*' "$tmp/err" | tr -d ', ' | cut -d: -f2
			return
		fi
	done
	echo "callgrind failed 6 times on $1; see its output:" >&2
	tail -20 "$tmp/err" >&2
	return 1
}
printf '%-32s %14s\n' benchmark instructions/op
for b in "$@"; do
	lo=$(count "$b" 500)
	hi=$(count "$b" 1500)
	printf '%-32s %14d\n' "$b" $(((hi - lo) / 1000))
done
