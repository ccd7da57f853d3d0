-- Hand-written: Prisma does not model triggers, so keep this file when squashing migrations.
-- GET /locations/{id} answers from the per-process read cache (lib/db/read-cache.ts), so a
-- committed change of a sub-account's answered columns, or its removal, empties every instance's
-- cache the way a change of token state does: NOTIFY on the same channel (see token_state_notify).

CREATE TRIGGER "Location_token_state" AFTER UPDATE OF "id", "companyId", "name", "createdAt" OR DELETE OR TRUNCATE
  ON "Location" FOR EACH STATEMENT EXECUTE FUNCTION "token_state_notify"();
