-- Hand-written: Prisma does not model triggers, so keep this file when squashing migrations.
-- The token endpoint authenticates clients from the per-process read cache (lib/oauth/client-auth.ts),
-- which holds the App row (with the hash of its secret) and its newest version. So a committed change
-- of an app or of its versions empties every instance's cache the way a change of token state does:
-- NOTIFY on the same channel (see token_state_notify). Apps change rarely, so any update counts.
-- The grants check in their own statement that the secret's hash is still the app's, so even a
-- notification still on its way never lets a regenerated secret issue a token.

CREATE TRIGGER "App_token_state" AFTER UPDATE OR DELETE OR TRUNCATE
  ON "App" FOR EACH STATEMENT EXECUTE FUNCTION "token_state_notify"();

CREATE TRIGGER "AppVersion_token_state" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON "AppVersion" FOR EACH STATEMENT EXECUTE FUNCTION "token_state_notify"();
