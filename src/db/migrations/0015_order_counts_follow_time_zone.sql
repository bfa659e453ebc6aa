-- A company's order counts are kept per day in its time zone. When the zone changes, its counts are rebuilt
-- in the same transaction, so `total_count` keeps matching the orders a date filter lists. (An order written
-- by a transaction that overlaps the change may still be counted on its day in the old zone.)
CREATE FUNCTION order_counts_rebuild_company() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM order_counts WHERE account_id = NEW.account_id AND company_id = NEW.id;
  INSERT INTO order_counts (account_id, company_id, status, day, slot, n)
  SELECT o.account_id, o.company_id, o.status, (o.created_at AT TIME ZONE NEW.time_zone)::date, (o.id % 16)::smallint, count(*)
  FROM orders o
  WHERE o.account_id = NEW.account_id AND o.company_id = NEW.id
  GROUP BY 1, 2, 3, 4, 5;
  RETURN NULL;
END $$;

CREATE TRIGGER order_counts_on_time_zone AFTER UPDATE OF time_zone ON companies
  FOR EACH ROW WHEN (OLD.time_zone IS DISTINCT FROM NEW.time_zone)
  EXECUTE FUNCTION order_counts_rebuild_company();
