-- OAuth additions. Tokens remember the authorization code they came from (kept through refresh
-- rotation), so that a replayed code can revoke everything issued from it (RFC 6749 §4.1.2).
ALTER TABLE oauth_tokens ADD COLUMN grant_id INTEGER REFERENCES oauth_grants (id) ON DELETE SET NULL;

CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oauth_tokens_application ON oauth_tokens (application_id);
CREATE INDEX oauth_grants_application ON oauth_grants (application_id);
CREATE INDEX web_sessions_user ON web_sessions (user_id);
