-- Directory entries: one row per agent@org, tombstones included.
-- Times are unix milliseconds; flags are 0 or 1; visibility is
-- 0 public, 1 unlisted, 2 private; list columns hold JSON arrays, kept as
-- text so that both backends return them byte for byte. Names compare
-- bytewise (COLLATE "C"), as in SQLite, so orders and prefixes agree.
CREATE TABLE directory_entries (
	id                 BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	org                TEXT COLLATE "C" NOT NULL,
	agent              TEXT COLLATE "C" NOT NULL,
	name               TEXT     NOT NULL,
	description        TEXT     NOT NULL,
	endpoint_url       TEXT     NOT NULL,
	endpoint_transport TEXT     NOT NULL,
	endpoint_websocket TEXT     NOT NULL,
	public_key         TEXT     NOT NULL,
	encryption_key     TEXT     NOT NULL,
	capabilities       TEXT     NOT NULL,
	metadata           BYTEA,
	tags               TEXT     NOT NULL,
	visibility         SMALLINT NOT NULL,
	allowed_orgs       TEXT     NOT NULL,
	restricted         SMALLINT NOT NULL,
	verified           SMALLINT NOT NULL,
	registered_at      BIGINT   NOT NULL,
	updated_at         BIGINT   NOT NULL,
	expires_at         BIGINT   NOT NULL,
	signed_at          BIGINT   NOT NULL,
	removed            SMALLINT NOT NULL,
	registration       BYTEA,
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
	cap        TEXT COLLATE "C" NOT NULL,
	entry      BIGINT  NOT NULL REFERENCES directory_entries (id) ON DELETE CASCADE,
	org        TEXT COLLATE "C" NOT NULL,
	agent      TEXT COLLATE "C" NOT NULL,
	visibility SMALLINT NOT NULL,
	restricted SMALLINT NOT NULL,
	verified   SMALLINT NOT NULL,
	expires_at BIGINT NOT NULL,
	updated_at BIGINT NOT NULL,
	health     SMALLINT NOT NULL,
	uptime_ppm BIGINT NOT NULL,
	PRIMARY KEY (cap, entry)
);
CREATE INDEX directory_caps_entry ON directory_caps (entry);
-- Within a capability, the default search order (score, uptime, recency,
-- walked backwards), so a page costs its own rows; it carries the columns
-- search filters on, so that counting is an index-only scan.
CREATE INDEX directory_caps_rank ON directory_caps (cap, health, uptime_ppm, updated_at, entry)
	INCLUDE (expires_at, visibility, restricted, verified, org);

-- A copy of each live entry's metadata, packed densely for the searches
-- that match requirements against it.
CREATE TABLE directory_metadata (
	entry    BIGINT PRIMARY KEY REFERENCES directory_entries (id) ON DELETE CASCADE,
	metadata BYTEA NOT NULL
);

-- The organisations an entry is restricted to. PostgreSQL checks a
-- viewer against them by hashing the entries restricted to its org, read
-- from the second index.
CREATE TABLE directory_peers (
	entry BIGINT NOT NULL REFERENCES directory_entries (id) ON DELETE CASCADE,
	org   TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (entry, org)
);
CREATE INDEX directory_peers_org ON directory_peers (org, entry);

-- Each agent's latest health and its uptime sums (see the store's
-- liveness code for the arithmetic).
CREATE TABLE directory_liveness (
	org                 TEXT COLLATE "C" NOT NULL,
	agent               TEXT COLLATE "C" NOT NULL,
	status              TEXT             NOT NULL,
	load                DOUBLE PRECISION NOT NULL,
	queue_depth         BIGINT           NOT NULL,
	capabilities_active TEXT             NOT NULL,
	first_seen          BIGINT           NOT NULL,
	last_seen           BIGINT           NOT NULL,
	up_sum              BIGINT           NOT NULL,
	up_hours            BIGINT           NOT NULL,
	uptime_ppm          BIGINT,
	PRIMARY KEY (org, agent)
);

-- One row per agent per observed hour (unix ms / 3600000), pruned after
-- 30 days.
CREATE TABLE directory_liveness_hours (
	org   TEXT COLLATE "C" NOT NULL,
	agent TEXT COLLATE "C" NOT NULL,
	hour  BIGINT NOT NULL,
	ok    BIGINT NOT NULL,
	total BIGINT NOT NULL,
	PRIMARY KEY (org, agent, hour)
);
CREATE INDEX directory_liveness_hours_hour ON directory_liveness_hours (hour);
