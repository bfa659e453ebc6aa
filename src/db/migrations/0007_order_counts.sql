-- Order counts per tenant, company, status and day (in the company's time zone), kept by triggers, so
-- that GET /orders can give `total_count` for status / company / created-date filters without counting
-- every matching row: the cost follows the number of days asked for, not the number of orders.
-- `slot` spreads one merchant's concurrent order writes over several rows instead of one hot row.
CREATE TABLE order_counts (
  account_id  uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  company_id  bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  status      text NOT NULL,
  day         date NOT NULL,
  slot        smallint NOT NULL,
  n           bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, status, day, company_id, slot)
);

CREATE FUNCTION order_counts_bump(p_account uuid, p_company bigint, p_status text, p_created timestamptz, p_order bigint, p_delta int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  zone text;
BEGIN
  SELECT time_zone INTO zone FROM companies WHERE id = p_company AND account_id = p_account;
  -- The company (or its whole tenant) is being erased: its counts go with the same cascade.
  IF NOT FOUND THEN
    RETURN;
  END IF;
  INSERT INTO order_counts AS c (account_id, company_id, status, day, slot, n)
  VALUES (p_account, p_company, p_status, (p_created AT TIME ZONE zone)::date, (p_order % 16)::smallint, p_delta)
  ON CONFLICT (account_id, status, day, company_id, slot) DO UPDATE SET n = c.n + excluded.n;
END $$;

CREATE FUNCTION order_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM order_counts_bump(OLD.account_id, OLD.company_id, OLD.status, OLD.created_at, OLD.id, -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM order_counts_bump(NEW.account_id, NEW.company_id, NEW.status, NEW.created_at, NEW.id, 1);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER order_counts_on_insert AFTER INSERT ON orders FOR EACH ROW EXECUTE FUNCTION order_counts_track();
CREATE TRIGGER order_counts_on_delete AFTER DELETE ON orders FOR EACH ROW EXECUTE FUNCTION order_counts_track();
CREATE TRIGGER order_counts_on_update AFTER UPDATE OF status, created_at, company_id ON orders
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.company_id IS DISTINCT FROM NEW.company_id)
  EXECUTE FUNCTION order_counts_track();

INSERT INTO order_counts (account_id, company_id, status, day, slot, n)
SELECT o.account_id, o.company_id, o.status, (o.created_at AT TIME ZONE c.time_zone)::date, (o.id % 16)::smallint, count(*)
FROM orders o JOIN companies c ON c.id = o.company_id
GROUP BY 1, 2, 3, 4, 5;
