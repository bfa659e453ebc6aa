-- Dashboard users, their sessions, one-time sign-in links, sign-in throttling and the account's audit log.

-- A person signs in with an e-mail address that is unique across the service; the user belongs to one account.
-- password_hash is `scrypt$N$r$p$<salt>$<hash>` (base64url); null until an invite or sign-in link sets one.
CREATE TABLE dashboard_users (
  id                     uuid PRIMARY KEY,
  account_id             uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  email                  text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
  role                   text NOT NULL CHECK (role IN ('owner', 'admin', 'finance', 'support')),
  password_hash          text,
  totp_secret_encrypted  text,
  totp_enabled_at        timestamptz,
  locale                 text NOT NULL DEFAULT 'pt-BR' CHECK (locale IN ('pt-BR', 'en')),
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT dashboard_users_email_key UNIQUE (email)
);
CREATE INDEX dashboard_users_account_idx ON dashboard_users (account_id, created_at);

-- Only SHA-256 of a link's token is kept; a link is used once and expires.
CREATE TABLE dashboard_sign_in_links (
  token_hash  bytea PRIMARY KEY,
  account_id  uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id     uuid NOT NULL REFERENCES dashboard_users(id) ON DELETE CASCADE,
  purpose     text NOT NULL CHECK (purpose IN ('invite', 'sign_in')),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_sign_in_links_user_idx ON dashboard_sign_in_links (account_id, user_id);

-- The cookie holds an opaque id; only its SHA-256 is kept, so a database read discloses no usable session.
CREATE TABLE dashboard_sessions (
  id_hash       bytea PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id       uuid NOT NULL REFERENCES dashboard_users(id) ON DELETE CASCADE,
  csrf_token    text NOT NULL,
  ip            text,
  user_agent    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL
);
CREATE INDEX dashboard_sessions_user_idx ON dashboard_sessions (account_id, user_id);

-- Failed sign-ins by subject (`email:<address>` or `ip:<address>`), counted over a sliding window.
CREATE TABLE dashboard_sign_in_failures (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  subject    text NOT NULL,
  failed_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_sign_in_failures_subject_idx ON dashboard_sign_in_failures (subject, failed_at);

-- Who did what in the account. user_id has no foreign key: the trail outlives a removed user (actor keeps the e-mail).
CREATE TABLE audit_events (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id  uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id     uuid,
  actor       text NOT NULL,
  action      text NOT NULL,
  subject     text,
  data        jsonb NOT NULL DEFAULT '{}',
  ip          text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_events_account_idx ON audit_events (account_id, id);
CREATE INDEX audit_events_subject_idx ON audit_events (account_id, subject, id);
