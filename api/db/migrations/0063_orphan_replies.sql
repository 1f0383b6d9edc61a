-- Replies stored before their parent (a remote reply to a status this server had not seen): when
-- the parent arrives or is fetched later, they are found by the parent's uri and threaded under it.
CREATE INDEX statuses_orphan_replies ON statuses (in_reply_to_uri) WHERE in_reply_to_id IS NULL AND in_reply_to_uri IS NOT NULL;
