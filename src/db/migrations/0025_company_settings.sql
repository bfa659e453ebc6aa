-- Company settings edited on the dashboard: the postal address (city and state were already there), the default
-- fine and late-interest terms (the same columns and rules as a payment plan's), and when each gateway's secret
-- was last set (the dashboard shows that and the secret's last four characters, never the secret).
ALTER TABLE companies
  ADD COLUMN street                      text,
  ADD COLUMN street_number               text,
  ADD COLUMN complement                  text,
  ADD COLUMN district                    text,
  ADD COLUMN postal_code                 text CHECK (postal_code ~ '^[0-9]{8}$'),
  ADD COLUMN default_fine_type           text NOT NULL DEFAULT 'percentage' CHECK (default_fine_type IN ('fixed', 'percentage')),
  ADD COLUMN default_fine_cents          bigint NOT NULL DEFAULT 0 CHECK (default_fine_cents >= 0),
  ADD COLUMN default_fine_tax            numeric(9, 4) NOT NULL DEFAULT 0 CHECK (default_fine_tax >= 0),
  ADD COLUMN default_late_interest_cents bigint NOT NULL DEFAULT 0 CHECK (default_late_interest_cents >= 0),
  ADD COLUMN default_late_interest_tax   numeric(9, 4) NOT NULL DEFAULT 0 CHECK (default_late_interest_tax >= 0);

ALTER TABLE company_gateways ADD COLUMN secret_set_at timestamptz;
UPDATE company_gateways SET secret_set_at = updated_at WHERE secret_encrypted IS NOT NULL;
