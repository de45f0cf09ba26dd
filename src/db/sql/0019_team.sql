-- 0019: people of a merchant's team (docs/team.md): users with a role, a scrypt password hash and a
-- TOTP secret; their recovery codes (hashed); invitations by a one-time link (hashed token); failed
-- sign-in attempts for the rate limits; dashboard sessions of a person (a session has a key or a person).

CREATE TABLE users (
  id             text PRIMARY KEY,              -- usr_…
  merchant_id    text NOT NULL REFERENCES merchants (id),
  email          text NOT NULL CHECK (email = lower(email)),
  password_hash  text NOT NULL,                 -- scrypt$N$r$p$salt$hash
  role           text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'finance', 'support', 'viewer')),
  totp_secret    text,                          -- base32; NULL until enrolled
  totp_last_step bigint NOT NULL DEFAULT 0,     -- the last accepted TOTP step: a code is accepted once
  created_at     timestamptz NOT NULL,
  removed_at     timestamptz
);
CREATE UNIQUE INDEX users_email_per_merchant ON users (merchant_id, email) WHERE removed_at IS NULL;
CREATE INDEX users_by_email ON users (email) WHERE removed_at IS NULL;

CREATE TABLE user_recovery_codes (
  user_id    text NOT NULL REFERENCES users (id),
  code_hash  text NOT NULL,
  used_at    timestamptz,
  PRIMARY KEY (user_id, code_hash)
);

CREATE TABLE invitations (
  id           text PRIMARY KEY,                -- inv_…
  merchant_id  text NOT NULL REFERENCES merchants (id),
  email        text CHECK (email = lower(email)),   -- NULL: the first owner's link, the e-mail is asked at set-up
  role         text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'finance', 'support', 'viewer')),
  token_hash   text NOT NULL UNIQUE,
  invited_by   text NOT NULL,                   -- usr_…, or the operator's name
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  accepted_at  timestamptz,
  revoked_at   timestamptz,
  user_id      text REFERENCES users (id)
);
CREATE INDEX invitations_by_merchant ON invitations (merchant_id, created_at);

CREATE TABLE sign_in_attempts (
  account_key  text NOT NULL,                   -- the lower-cased e-mail as typed
  address      text NOT NULL,
  at           timestamptz NOT NULL
);
CREATE INDEX sign_in_attempts_by_account ON sign_in_attempts (account_key, at);
CREATE INDEX sign_in_attempts_by_address ON sign_in_attempts (address, at);
CREATE INDEX sign_in_attempts_by_at ON sign_in_attempts (at);  -- forgetting attempts past the window

ALTER TABLE dashboard_sessions ALTER COLUMN key_id DROP NOT NULL;
ALTER TABLE dashboard_sessions ADD COLUMN user_id text REFERENCES users (id);
ALTER TABLE dashboard_sessions ADD COLUMN environment text CHECK (environment IN ('sandbox', 'production'));
ALTER TABLE dashboard_sessions ADD CONSTRAINT dashboard_sessions_key_or_user
  CHECK ((key_id IS NULL) <> (user_id IS NULL) AND (user_id IS NULL OR environment IS NOT NULL));
CREATE INDEX dashboard_sessions_by_user ON dashboard_sessions (user_id) WHERE user_id IS NOT NULL;
