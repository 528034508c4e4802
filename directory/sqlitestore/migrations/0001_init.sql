-- Directory entries: one row per agent@org, tombstones included.
-- Times are unix milliseconds; flags are 0 or 1; visibility is
-- 0 public, 1 unlisted, 2 private; list columns hold JSON arrays.
CREATE TABLE directory_entries (
	id                 INTEGER PRIMARY KEY,
	org                TEXT    NOT NULL,
	agent              TEXT    NOT NULL,
	name               TEXT    NOT NULL,
	description        TEXT    NOT NULL,
	endpoint_url       TEXT    NOT NULL,
	endpoint_transport TEXT    NOT NULL,
	endpoint_websocket TEXT    NOT NULL,
	public_key         TEXT    NOT NULL,
	encryption_key     TEXT    NOT NULL,
	capabilities       TEXT    NOT NULL,
	metadata           BLOB,
	tags               TEXT    NOT NULL,
	visibility         INTEGER NOT NULL,
	allowed_orgs       TEXT    NOT NULL,
	restricted         INTEGER NOT NULL,
	verified           INTEGER NOT NULL,
	registered_at      INTEGER NOT NULL,
	updated_at         INTEGER NOT NULL,
	expires_at         INTEGER NOT NULL,
	signed_at          INTEGER NOT NULL,
	removed            INTEGER NOT NULL,
	registration       BLOB,
	UNIQUE (org, agent)
);
CREATE INDEX directory_entries_changes ON directory_entries (updated_at, id);
CREATE INDEX directory_entries_expiry ON directory_entries (removed, expires_at);

-- The capability index discovery reads: one row per capability of each
-- live entry, with copies of the entry columns that search filters and
-- sorts on, and of the agent's health (search weight of its latest
-- status, 0 for offline) and uptime_ppm (-1 when never observed), so that
-- finding the candidates touches no other table. Rewritten with every
-- write of the entry; tombstones have none.
CREATE TABLE directory_caps (
	cap        TEXT NOT NULL,
	entry      INTEGER NOT NULL REFERENCES directory_entries (id) ON DELETE CASCADE,
	org        TEXT NOT NULL,
	agent      TEXT NOT NULL,
	visibility INTEGER NOT NULL,
	restricted INTEGER NOT NULL,
	verified   INTEGER NOT NULL,
	expires_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	health     INTEGER NOT NULL,
	uptime_ppm INTEGER NOT NULL,
	-- Within a capability, rows lie in the default search order (score,
	-- uptime, recency, walked backwards), so a page costs its own rows.
	PRIMARY KEY (cap, health, uptime_ppm, updated_at, entry)
) WITHOUT ROWID;
CREATE INDEX directory_caps_entry ON directory_caps (entry);

-- A copy of each live entry's metadata, packed densely for the searches
-- that match requirements against it.
CREATE TABLE directory_metadata (
	entry    INTEGER PRIMARY KEY REFERENCES directory_entries (id) ON DELETE CASCADE,
	metadata BLOB NOT NULL
);

-- The organisations an entry is restricted to.
CREATE TABLE directory_peers (
	entry INTEGER NOT NULL REFERENCES directory_entries (id) ON DELETE CASCADE,
	org   TEXT    NOT NULL,
	PRIMARY KEY (entry, org)
) WITHOUT ROWID;

-- Each agent's latest health and its uptime sums (see the store's
-- liveness code for the arithmetic).
CREATE TABLE directory_liveness (
	org                 TEXT    NOT NULL,
	agent               TEXT    NOT NULL,
	status              TEXT    NOT NULL,
	load                REAL    NOT NULL,
	queue_depth         INTEGER NOT NULL,
	capabilities_active TEXT    NOT NULL,
	first_seen          INTEGER NOT NULL,
	last_seen           INTEGER NOT NULL,
	up_sum              INTEGER NOT NULL,
	up_hours            INTEGER NOT NULL,
	uptime_ppm          INTEGER,
	PRIMARY KEY (org, agent)
) WITHOUT ROWID;

-- One row per agent per observed hour (unix ms / 3600000), pruned after
-- 30 days.
CREATE TABLE directory_liveness_hours (
	org   TEXT    NOT NULL,
	agent TEXT    NOT NULL,
	hour  INTEGER NOT NULL,
	ok    INTEGER NOT NULL,
	total INTEGER NOT NULL,
	PRIMARY KEY (org, agent, hour)
) WITHOUT ROWID;
CREATE INDEX directory_liveness_hours_hour ON directory_liveness_hours (hour);
