#!/usr/bin/env bash
# Runs `moltgate conformance` against a fresh `moltgate serve`, set up as the README tells an operator to:
# a new gateway with the echo agent, which imports the test organisation's peer document. Any failed case
# fails CI. KNOWN_FAILURES are cases moltgate fails today; they still run and print as XFAIL, and one that
# starts to pass (XPASS) fails CI until it leaves the list.
set -euo pipefail
cd "$(dirname "$0")/.."

KNOWN_FAILURES=(
)

work=$(mktemp -d /tmp/mgconf.XXXXXX) # short: the gateway's sockets live under it
pid=""
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid"
		wait "$pid" || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/bin/" ./cmd/moltgate ./localbridge/agent/echo/echoagent
mg="$work/bin/moltgate"

# Two free loopback ports in a row: HTTPS, then gRPC.
port=""
for _ in $(seq 50); do
	p=$((20000 + RANDOM % 20000))
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && ! (exec 3<>"/dev/tcp/127.0.0.1/$((p + 1))") 2>/dev/null; then
		port=$p
		break
	fi
done
if [ -z "$port" ]; then
	echo "conformance: no free pair of loopback ports" >&2
	exit 1
fi

"$mg" init --dir "$work/gw" --org target --listen "127.0.0.1:$port" >/dev/null
"$mg" agent add --dir "$work/gw" --id echo --exec "$work/bin/echoagent" --max-cls pii >/dev/null
"$mg" conformance init --dir "$work/suite" >/dev/null
# A ceiling of pii, so that the consent cases run too.
"$mg" peer import --dir "$work/gw" --max-cls pii <"$work/suite/peer.json" >/dev/null
"$mg" peer export --dir "$work/gw" >"$work/gateway.json"
"$mg" serve --dir "$work/gw" >"$work/serve.log" 2>&1 &
pid=$!

# Ready once the echo agent answers through the gateway with its tools.
for i in $(seq 300); do
	if "$mg" ping --dir "$work/gw" echo 2>/dev/null | grep -q '"capabilities_active":\["'; then
		break
	fi
	if ! kill -0 "$pid" 2>/dev/null || [ "$i" = 300 ]; then
		echo "conformance: the gateway did not become ready" >&2
		cat "$work/serve.log" >&2
		exit 1
	fi
	sleep 0.1
done

known=$(IFS=,; echo "${KNOWN_FAILURES[*]}")
built=$SECONDS
if ! out=$("$mg" conformance --dir "$work/suite" --peer-doc "$work/gateway.json" --max-cls pii --known-failures "$known" 2>&1); then
	echo "$out" | grep -v '^PASS ' >&2
	echo "conformance: FAILED; the gateway's log:" >&2
	tail -n 20 "$work/serve.log" >&2
	exit 1
fi
echo "$out" | grep -v '^PASS '
echo "conformance: OK, the suite ran in $((SECONDS - built))s (${SECONDS}s with the build and the gateway's start)"
