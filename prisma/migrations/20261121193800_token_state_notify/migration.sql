-- Hand-written: Prisma does not model triggers, so keep this file when squashing migrations.
-- Every committed change that can make a verified Bearer token stop working, or change what it
-- may do, sends NOTIFY token_state. Each app instance LISTENs and empties its verification cache
-- (lib/tokens/verification-cache.ts). Statement-level triggers name only the columns that matter,
-- so the lastUsedAt writes of verifications send nothing. PostgreSQL folds identical
-- notifications of one transaction into one, delivered at commit.
--
-- @prisma/adapter-pg applies a migration by splitting it at every semicolon, so this file has
-- none except between statements: the function body is a U& string whose semicolons are \003B.

CREATE OR REPLACE FUNCTION "token_state_notify"() RETURNS trigger LANGUAGE plpgsql
  AS U&'BEGIN PERFORM pg_notify(''token_state'', TG_TABLE_NAME)\003B RETURN NULL\003B END';

CREATE TRIGGER "AccessToken_token_state" AFTER UPDATE OF "jti", "grantId", "revokedAt", "expiresAt" OR DELETE OR TRUNCATE
  ON "AccessToken" FOR EACH STATEMENT EXECUTE FUNCTION "token_state_notify"();

CREATE TRIGGER "TokenGrant_token_state" AFTER UPDATE OF "appId", "installationId", "revokedAt" OR DELETE OR TRUNCATE
  ON "TokenGrant" FOR EACH STATEMENT EXECUTE FUNCTION "token_state_notify"();

CREATE TRIGGER "Installation_token_state" AFTER UPDATE OF "status" OR DELETE OR TRUNCATE
  ON "Installation" FOR EACH STATEMENT EXECUTE FUNCTION "token_state_notify"();

CREATE TRIGGER "PrivateIntegration_token_state" AFTER UPDATE OF "companyId", "locationId", "scopes" OR DELETE OR TRUNCATE
  ON "PrivateIntegration" FOR EACH STATEMENT EXECUTE FUNCTION "token_state_notify"();

CREATE TRIGGER "PrivateIntegrationToken_token_state" AFTER UPDATE OF "integrationId", "slot", "tokenHash", "expiresAt", "revokedAt" OR DELETE OR TRUNCATE
  ON "PrivateIntegrationToken" FOR EACH STATEMENT EXECUTE FUNCTION "token_state_notify"();
