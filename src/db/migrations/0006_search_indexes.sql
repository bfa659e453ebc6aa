-- Substring search (`q`) over customers and orders: trigram indexes make `ILIKE '%text%'` an index scan.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX customers_email_trgm_idx ON customers USING gin (email gin_trgm_ops);
CREATE INDEX customers_name_trgm_idx ON customers USING gin (name gin_trgm_ops);
