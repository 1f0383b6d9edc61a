-- The collection an `added_to_collection` notification is about (Mastodon 4.6): the notification
-- goes with the collection when it is deleted.
ALTER TABLE notifications ADD COLUMN collection_id INTEGER REFERENCES collections (id) ON DELETE CASCADE;
