-- Job lanes: each job runs in a lane with its own concurrency, so merchant notification deliveries never hold
-- back the jobs that move money. `concurrency_key` groups jobs limited together inside a lane (a delivery's
-- endpoint). Existing delivery jobs move to their lane, keyed by their endpoint.
ALTER TABLE jobs ADD COLUMN lane text NOT NULL DEFAULT 'core' CHECK (lane IN ('core', 'deliveries'));
ALTER TABLE jobs ADD COLUMN concurrency_key text;
UPDATE jobs SET lane = 'deliveries' WHERE type = 'notifications.deliver';
UPDATE jobs SET concurrency_key = d.endpoint_id
  FROM notification_deliveries d
  WHERE jobs.type = 'notifications.deliver' AND d.id = jobs.payload->>'delivery_id';
DROP INDEX jobs_ready_idx;
CREATE INDEX jobs_ready_idx ON jobs (lane, run_at, id) WHERE status = 'queued';

-- The circuit breaker of an endpoint, shared by every worker: consecutive failed attempts, and until when the
-- endpoint is left alone after too many (one probe attempt goes out once that time has passed).
ALTER TABLE notification_endpoints ADD COLUMN failure_streak integer NOT NULL DEFAULT 0;
ALTER TABLE notification_endpoints ADD COLUMN circuit_open_until timestamptz;

-- Dead events: an event whose job ran out of attempts is `failed` (with when), listed for the merchant and the
-- operator, and replayable. Events left `received` behind a dead job before this migration join the list.
ALTER TABLE webhook_events ADD COLUMN failed_at timestamptz;
UPDATE webhook_events SET status = 'failed', failed_at = j.finished_at
  FROM jobs j
  WHERE webhook_events.status = 'received'
    AND j.dedup_key = 'webhooks.process_event:' || webhook_events.id
    AND j.status = 'dead'
    AND NOT EXISTS (
      SELECT 1 FROM jobs live
      WHERE live.dedup_key = 'webhooks.process_event:' || webhook_events.id AND live.status IN ('queued', 'running')
    );
CREATE INDEX webhook_events_failed_idx ON webhook_events (account_id, id) WHERE status = 'failed';
