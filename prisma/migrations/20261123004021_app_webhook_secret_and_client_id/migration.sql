-- AlterEnum
ALTER TYPE "AuditAction" ADD VALUE 'app_webhook_secret_rotated';

-- AlterTable
ALTER TABLE "App" ADD COLUMN     "previousWebhookSecretEncrypted" TEXT,
ADD COLUMN     "previousWebhookSecretExpiresAt" TIMESTAMP(3),
ADD COLUMN     "webhookSecretEncrypted" TEXT,
ADD COLUMN     "webhookSecretHint" TEXT;

-- Client ids take the platform's shape `<appId>-<suffix>` (its SDK reads the app id as
-- clientId.split('-')[0]). An id of the old shape `<24 hex>-<8 hex>` keeps its suffix, any other
-- gets 8 random hex digits. Apps get no webhook secret here (it is encrypted with SERVER_SECRET,
-- which SQL does not have): one is made at the first delivery, and the app's page offers Rotate.
-- No semicolon in these comments: the pg driver adapter splits a migration script at each one.
UPDATE "App"
SET "clientId" = "id" || '-' || CASE
    WHEN "clientId" ~ '^[0-9a-f]{24}-[0-9a-f]{8}$' THEN split_part("clientId", '-', 2)
    ELSE substr(md5(random()::text || "id"), 1, 8)
  END
WHERE left("clientId", length("id") + 1) <> "id" || '-';
