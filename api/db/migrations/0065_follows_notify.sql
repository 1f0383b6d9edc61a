-- Follows whose follower asked to be notified of the target's posts (only local users can ask), by
-- target: each status created looks its author up here (localNotifyingFollowers). The index holds
-- only those rare rows, so the lookup is one short probe whether the author has five followers or
-- thousands, and whatever the number of local users.
CREATE INDEX follows_notify ON follows (target_account_id) WHERE notify = 1;
