#!/usr/bin/env bash
# A throwaway PostgreSQL for the test suite.
#
# Installs PostgreSQL from Debian's packages if it is missing, creates a
# cluster in a temporary directory (as the postgres user when run as root),
# starts it on a free local port with trust authentication on 127.0.0.1 only,
# creates a database, and exports
#
#   MOLTGATE_TEST_POSTGRES   the database's DSN
#   MOLTGATE_REQUIRE_POSTGRES=1, so that tests fail rather than skip without it
#
# Two ways to use it:
#
#   source .ci/postgres.sh        # in a script: the server stops when the script exits
#   .ci/postgres.sh CMD [ARG...]  # runs CMD with the variables set, then stops the server
#
# With no CMD and not sourced, it starts the server, prints the export lines and
# leaves the server running; stop it with: pg_ctl -D "$MOLTGATE_PG_DIR/data" stop

moltgate_pg_log() { echo "postgres.sh: $*" >&2; }

moltgate_pg_bindir() {
	local d
	# Debian keeps the server binaries out of PATH, one directory per version.
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
			echo "$d"
			return 0
		fi
	done
	if command -v pg_config >/dev/null 2>&1; then
		d=$(pg_config --bindir)
		if [ -x "$d/initdb" ]; then
			echo "$d"
			return 0
		fi
	fi
	if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
		dirname "$(command -v initdb)"
		return 0
	fi
	return 1
}

moltgate_pg_install() {
	if moltgate_pg_bindir >/dev/null; then
		return 0
	fi
	if [ "$(id -u)" != 0 ]; then
		moltgate_pg_log "PostgreSQL is not installed and installing it needs root (apt-get install postgresql)"
		return 1
	fi
	moltgate_pg_log "installing PostgreSQL from the Debian packages"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 || return 1
	# The package's own cluster is not used; keep it from being created.
	mkdir -p /etc/postgresql-common/createcluster.d
	echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/moltgate-ci.conf
	apt-get install -y -qq postgresql >&2 || return 1
	moltgate_pg_bindir >/dev/null
}

# moltgate_pg_as_owner runs a command as the cluster's owner.
moltgate_pg_as_owner() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

moltgate_pg_port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

moltgate_pg_start() {
	moltgate_pg_install || return 1
	local bin
	bin=$(moltgate_pg_bindir) || return 1
	MOLTGATE_PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/moltgate-pg.XXXXXX") || return 1
	export MOLTGATE_PG_DIR
	if [ "$(id -u)" = 0 ]; then
		getent passwd postgres >/dev/null || { moltgate_pg_log "no postgres user"; return 1; }
		chown postgres: "$MOLTGATE_PG_DIR"
	fi
	chmod 700 "$MOLTGATE_PG_DIR"
	local data="$MOLTGATE_PG_DIR/data"
	moltgate_pg_as_owner "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C \
		>"$MOLTGATE_PG_DIR/initdb.log" 2>&1 || {
		moltgate_pg_log "initdb failed:"
		cat "$MOLTGATE_PG_DIR/initdb.log" >&2
		return 1
	}
	local port tries=0
	while :; do
		tries=$((tries + 1))
		port=$((20000 + RANDOM % 40000))
		moltgate_pg_port_free "$port" || continue
		# The socket lives in the cluster's own directory; only TCP on loopback is served.
		if moltgate_pg_as_owner "$bin/pg_ctl" -D "$data" -l "$MOLTGATE_PG_DIR/server.log" -w -t 60 \
			-o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$MOLTGATE_PG_DIR -c fsync=off -c full_page_writes=off -c max_connections=200" \
			start >/dev/null 2>&1; then
			break
		fi
		if [ "$tries" -ge 5 ]; then
			moltgate_pg_log "the server did not start:"
			cat "$MOLTGATE_PG_DIR/server.log" >&2
			return 1
		fi
	done
	moltgate_pg_as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres moltgate_test || {
		moltgate_pg_log "createdb failed"
		return 1
	}
	MOLTGATE_PG_BIN=$bin
	MOLTGATE_TEST_POSTGRES="postgres://postgres@127.0.0.1:$port/moltgate_test?sslmode=disable"
	MOLTGATE_REQUIRE_POSTGRES=1
	export MOLTGATE_PG_BIN MOLTGATE_TEST_POSTGRES MOLTGATE_REQUIRE_POSTGRES
	moltgate_pg_log "PostgreSQL on 127.0.0.1:$port (cluster $MOLTGATE_PG_DIR)"
}

moltgate_pg_stop() {
	if [ -n "${MOLTGATE_PG_DIR:-}" ] && [ -d "$MOLTGATE_PG_DIR/data" ]; then
		moltgate_pg_as_owner "$MOLTGATE_PG_BIN/pg_ctl" -D "$MOLTGATE_PG_DIR/data" -m immediate stop >/dev/null 2>&1
		rm -rf "$MOLTGATE_PG_DIR"
	fi
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
	# Sourced: start, and stop when the calling shell exits, keeping any
	# EXIT trap it had.
	moltgate_pg_start || return 1
	moltgate_pg_prev_trap=$(trap -p EXIT | sed -E "s/^trap -- '(.*)' EXIT$/\1/")
	trap "moltgate_pg_stop; ${moltgate_pg_prev_trap}" EXIT
else
	set -euo pipefail
	moltgate_pg_start
	if [ "$#" -gt 0 ]; then
		trap moltgate_pg_stop EXIT
		"$@"
	else
		echo "export MOLTGATE_TEST_POSTGRES='$MOLTGATE_TEST_POSTGRES'"
		echo "export MOLTGATE_REQUIRE_POSTGRES=1"
		echo "export MOLTGATE_PG_DIR='$MOLTGATE_PG_DIR'"
	fi
fi
