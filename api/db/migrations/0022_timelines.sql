-- Timelines: the local public timeline walks this instance's public, original statuses newest
-- first without stepping over the (eventually far more numerous) remote ones.
CREATE INDEX statuses_public_local ON statuses (id DESC) WHERE visibility = 'public' AND reblog_of_id IS NULL AND local = 1;
