-- A listen session (`checkout listen`) is an endpoint that lives while its CLI keeps renewing the lease:
-- listen_expires_at is set only for these, and once it passes the endpoint neither gets events nor sends.
-- Sessions may forward to the same local URL as each other or as a merchant endpoint, so the URL stays
-- unique among the merchant's own endpoints only.
ALTER TABLE notification_endpoints ADD COLUMN listen_expires_at timestamptz;
ALTER TABLE notification_endpoints DROP CONSTRAINT notification_endpoints_account_id_url_key;
CREATE UNIQUE INDEX notification_endpoints_account_url_key ON notification_endpoints (account_id, url)
  WHERE listen_expires_at IS NULL;
