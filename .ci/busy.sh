#!/usr/bin/env bash
# Runs a command beside N busy loops, each keeping a CPU busy, as on a loaded laptop or a shared CI runner:
#
#   bash .ci/busy.sh 10 go run ./cmd/moltgate demo
#   bash .ci/busy.sh 10 bash .ci/run
#
# The loops stop when the command ends, and the command's exit status is the script's.
set -euo pipefail
if [ "$#" -lt 2 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
	echo "usage: bash .ci/busy.sh N COMMAND [ARG...]   (N busy loops beside COMMAND)" >&2
	exit 2
fi
n=$1
shift
pids=()
stop() {
	if [ "${#pids[@]}" -gt 0 ]; then
		kill "${pids[@]}" 2>/dev/null || true
		wait "${pids[@]}" 2>/dev/null || true
	fi
}
trap stop EXIT
for _ in $(seq "$n"); do
	(while :; do :; done) &
	pids+=("$!")
done
echo "busy.sh: $n busy loops beside: $*" >&2
"$@"
