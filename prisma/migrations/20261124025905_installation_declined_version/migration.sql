-- AlterTable
ALTER TABLE "Installation" ADD COLUMN     "declinedVersionId" TEXT;

-- Hand-written: Prisma does not model triggers, so keep this part when squashing migrations.
-- An access token never grants more than its installation's current scopes: verification
-- intersects them, and caches the answer in each instance's read cache (lib/db/read-cache.ts).
-- So a committed change of an installation's scopes or version (an approved update, an applied
-- removal, a re-install) empties every instance's cache, as a revocation does (token_state_notify).
CREATE TRIGGER "Installation_scopes_token_state" AFTER UPDATE OF "scopes", "versionId"
  ON "Installation" FOR EACH STATEMENT EXECUTE FUNCTION "token_state_notify"();
