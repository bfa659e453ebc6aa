-- The worker's sweep of pending refunds left without a reconciliation job reads pending rows oldest first,
-- across accounts, like the renewal sweep's subscriptions_due_idx.
CREATE INDEX refunds_pending_due_idx ON refunds (created_at) WHERE status = 'pending';
