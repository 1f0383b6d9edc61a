-- The application that tokens made by `hearth token` belong to, so that apps/verify_credentials
-- answers for them as for any client's. Its client secret is random bytes that are no hash of
-- any secret: nobody can authenticate as it. Tokens made by the command before it existed (the
-- only user tokens without an application) join it.
INSERT INTO oauth_applications (id, name, website, redirect_uris, scopes, client_id, client_secret, owner_user_id, created_at)
SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) << 16,
       'Hearth command line', NULL, 'urn:ietf:wg:oauth:2.0:oob',
       'profile read write follow push admin:read admin:write', 'hearth-cli', lower(hex(randomblob(32))), NULL,
       CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE NOT EXISTS (SELECT 1 FROM oauth_applications WHERE client_id = 'hearth-cli');

UPDATE oauth_tokens SET application_id = (SELECT id FROM oauth_applications WHERE client_id = 'hearth-cli')
WHERE application_id IS NULL AND user_id IS NOT NULL;
