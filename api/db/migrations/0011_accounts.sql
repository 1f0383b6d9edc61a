-- Accounts: domains of websites allowed to credit the account (Mastodon's attribution_domains,
-- federated as `attributionDomains`), a JSON array of lower-case host names.
ALTER TABLE accounts ADD COLUMN attribution_domains TEXT NOT NULL DEFAULT '[]';

-- A user's own invites are listed by inviter.
CREATE INDEX invites_user ON invites (user_id);
