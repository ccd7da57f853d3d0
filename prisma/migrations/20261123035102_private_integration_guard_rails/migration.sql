-- AlterTable
ALTER TABLE "Company" ADD COLUMN     "maximumTokenLifetimeDays" INTEGER;

-- AlterTable
ALTER TABLE "PrivateIntegration" ADD COLUMN     "allSubAccounts" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "allowedIpAddresses" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "expiresAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "PrivateIntegrationToken" ADD COLUMN     "lastUsedAddress" TEXT;

-- CreateTable
CREATE TABLE "PrivateIntegrationLocation" (
    "integrationId" TEXT NOT NULL,
    "locationId" TEXT NOT NULL,

    CONSTRAINT "PrivateIntegrationLocation_pkey" PRIMARY KEY ("integrationId","locationId")
);

-- CreateIndex
CREATE INDEX "PrivateIntegrationLocation_locationId_idx" ON "PrivateIntegrationLocation"("locationId");

-- AddForeignKey
ALTER TABLE "PrivateIntegrationLocation" ADD CONSTRAINT "PrivateIntegrationLocation_integrationId_fkey" FOREIGN KEY ("integrationId") REFERENCES "PrivateIntegration"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PrivateIntegrationLocation" ADD CONSTRAINT "PrivateIntegrationLocation_locationId_fkey" FOREIGN KEY ("locationId") REFERENCES "Location"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: Prisma does not model triggers, so keep this part when squashing migrations.
-- The guard rails (expiry, sub-account selection, allowed IP addresses) are part of the verified
-- row of a private-integration token in the read cache (lib/db/read-cache.ts), so a committed
-- change of them, or of the chosen sub-accounts, empties every instance's cache: NOTIFY token_state
-- as in migration token_state_notify (same function, same channel).

DROP TRIGGER "PrivateIntegration_token_state" ON "PrivateIntegration";

CREATE TRIGGER "PrivateIntegration_token_state" AFTER UPDATE OF "companyId", "locationId", "scopes", "expiresAt", "allSubAccounts", "allowedIpAddresses" OR DELETE OR TRUNCATE
  ON "PrivateIntegration" FOR EACH STATEMENT EXECUTE FUNCTION "token_state_notify"();

CREATE TRIGGER "PrivateIntegrationLocation_token_state" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON "PrivateIntegrationLocation" FOR EACH STATEMENT EXECUTE FUNCTION "token_state_notify"();
