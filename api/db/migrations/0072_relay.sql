-- The instance's side of its relay (api/relay/): the enrolment (one row), the inbound messages of
-- the relay already applied here (so that a replay after a lost acknowledgement is acknowledged
-- again without being applied twice), and the connector's last reported status, which the
-- `hearth relay status` command and the owner's status endpoint read.
CREATE TABLE relay_enrolment (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  relay_url TEXT NOT NULL,
  host TEXT NOT NULL,
  origin TEXT NOT NULL,
  tunnel_public_key TEXT NOT NULL,
  tunnel_private_key TEXT NOT NULL,
  enrolled_at INTEGER NOT NULL
);

CREATE TABLE relay_applied (
  host TEXT NOT NULL,
  seq INTEGER NOT NULL,
  applied_at INTEGER NOT NULL,
  PRIMARY KEY (host, seq)
) WITHOUT ROWID;

CREATE INDEX relay_applied_age ON relay_applied (applied_at);

CREATE TABLE relay_status (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  status TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
