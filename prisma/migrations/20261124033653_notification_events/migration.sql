-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "NotificationKind" ADD VALUE 'integration_revoked';
ALTER TYPE "NotificationKind" ADD VALUE 'refresh_token_revoked';
ALTER TYPE "NotificationKind" ADD VALUE 'webhook_endpoint_disabled';

-- AlterTable
ALTER TABLE "Notification" ADD COLUMN     "appId" TEXT,
ALTER COLUMN "integrationId" DROP NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "Notification_appId_milestone_userId_key" ON "Notification"("appId", "milestone", "userId");

-- AddForeignKey
ALTER TABLE "Notification" ADD CONSTRAINT "Notification_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Each notification is about an integration or an app, never both nor neither.
ALTER TABLE "Notification" ADD CONSTRAINT "Notification_subject_check" CHECK (("integrationId" IS NULL) <> ("appId" IS NULL));
