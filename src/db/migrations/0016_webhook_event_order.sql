-- The payment an inbound event is about (the gateway's id for it, as the event's actions name it; null when it
-- names none), so events about one payment are applied in the order they were received.
ALTER TABLE webhook_events ADD COLUMN payment_ref text;
-- "Is an earlier event of this payment still waiting?", asked before applying each event.
CREATE INDEX webhook_events_pending_ref_idx ON webhook_events (account_id, payment_ref, id)
  WHERE status = 'received' AND payment_ref IS NOT NULL;
