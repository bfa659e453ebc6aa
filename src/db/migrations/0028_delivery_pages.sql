-- An endpoint's deliveries are read newest first, a page at a time after the last one shown (keyset on
-- created_at, id). This index serves both the first page and every later one; it replaces the one on
-- (account_id, endpoint_id), which it covers. None of its columns changes after insert, so updates of a delivery's
-- status and attempts stay HOT-eligible.
CREATE INDEX notification_deliveries_endpoint_created_idx
  ON notification_deliveries (account_id, endpoint_id, created_at DESC, id DESC);
DROP INDEX notification_deliveries_endpoint_idx;
