-- Quote posts (Mastodon 4.5, FEP-044f): a status that quotes another, and who may quote a status.

-- One quote per quoting status: what it quotes and where the quoted author's approval stands.
-- `state` is what the quoted author decided: 'pending' until they do, 'accepted', 'rejected', or
-- 'revoked' (accepted, then withdrawn). An accepted quote whose quoted status has gone keeps its
-- state: the API shows it as 'deleted'.
CREATE TABLE quotes (
  id INTEGER PRIMARY KEY,
  status_id INTEGER NOT NULL UNIQUE REFERENCES statuses (id) ON DELETE CASCADE,      -- the quoting status
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,            -- its author
  quoted_status_id INTEGER REFERENCES statuses (id) ON DELETE SET NULL,              -- NULL: not known here (yet), or deleted
  quoted_account_id INTEGER REFERENCES accounts (id) ON DELETE SET NULL,
  quoted_uri TEXT,                                   -- ActivityPub id of the quoted status, as the quote names it
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'accepted', 'rejected', 'revoked')),
  legacy INTEGER NOT NULL DEFAULT 0,                 -- named only by quoteUrl, _misskey_quote or quoteUri (no FEP-044f approval)
  approval_uri TEXT,                                 -- the QuoteAuthorization a remote quoted author issued
  activity_uri TEXT,                                 -- the id of the QuoteRequest that asked for it
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE INDEX quotes_quoted_status ON quotes (quoted_status_id, id) WHERE quoted_status_id IS NOT NULL;
CREATE INDEX quotes_accepted ON quotes (quoted_status_id) WHERE state = 'accepted' AND quoted_status_id IS NOT NULL;
CREATE INDEX quotes_waiting ON quotes (quoted_uri) WHERE quoted_status_id IS NULL AND quoted_uri IS NOT NULL;
CREATE INDEX quotes_approval ON quotes (approval_uri) WHERE approval_uri IS NOT NULL;
CREATE INDEX quotes_activity ON quotes (activity_uri) WHERE activity_uri IS NOT NULL;

-- Who may quote a status, as Mastodon keeps it: bit flags (1 a policy Mastodon does not model,
-- 2 everyone, 4 the author's followers, 8 the accounts the author follows) for automatic approval
-- and for manual review. No row: nobody but the author (Mastodon's default for remote statuses
-- without an interactionPolicy, and for every private or direct status).
CREATE TABLE status_quote_policies (
  status_id INTEGER PRIMARY KEY REFERENCES statuses (id) ON DELETE CASCADE,
  automatic INTEGER NOT NULL DEFAULT 0,
  manual INTEGER NOT NULL DEFAULT 0
) STRICT;
