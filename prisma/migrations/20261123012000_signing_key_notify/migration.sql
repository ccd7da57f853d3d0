-- Hand-written: Prisma does not model triggers, so keep this file when squashing migrations.
-- A signing-key rotation committed by any instance (or the CLI) sends NOTIFY token_state with the
-- payload "SigningKey", and every instance then reloads its cached keys (lib/tokens/signing-keys.ts),
-- so it signs with the new key and verifies its tokens at once.

CREATE TRIGGER "SigningKey_token_state" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON "SigningKey" FOR EACH STATEMENT EXECUTE FUNCTION "token_state_notify"();
