-- Peers our deliveries are failing to reach, one row per inbox, written by the delivery thread: a
-- failed attempt adds to its row, a delivery to the same inbox that succeeds removes it. The owner
-- reads them to see which servers are failing, and since when.
CREATE TABLE delivery_failures (
  inbox TEXT PRIMARY KEY,                     -- the inbox URL deliveries went to
  host TEXT NOT NULL,                         -- its host (with the port, if any)
  first_failed_at INTEGER NOT NULL,           -- the first failure since the last success
  last_failed_at INTEGER NOT NULL,
  failures INTEGER NOT NULL,                  -- failed attempts since the last success
  last_status INTEGER,                        -- HTTP status of the last failure; NULL: no answer
  last_error TEXT NOT NULL                    -- the start of the last answer (or the network error)
) STRICT;
