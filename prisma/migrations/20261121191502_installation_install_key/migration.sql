-- AlterTable: one Installation per app and place, so re-installs (even concurrent ones) reuse it.
ALTER TABLE "Installation" ADD COLUMN     "installKey" TEXT;
UPDATE "Installation" SET "installKey" = "appId" || ':' || "userType"::text || ':' || COALESCE("locationId", "companyId");
ALTER TABLE "Installation" ALTER COLUMN "installKey" SET NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "Installation_installKey_key" ON "Installation"("installKey");
