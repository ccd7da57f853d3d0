-- CreateEnum
CREATE TYPE "NotificationKind" AS ENUM ('expiry', 'rotation_due');

-- AlterTable
ALTER TABLE "User" ADD COLUMN     "tokenEmails" BOOLEAN NOT NULL DEFAULT true;

-- CreateTable
CREATE TABLE "Notification" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "integrationId" TEXT NOT NULL,
    "kind" "NotificationKind" NOT NULL,
    "milestone" TEXT NOT NULL,
    "dueDate" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "readAt" TIMESTAMP(3),
    "emailedAt" TIMESTAMP(3),

    CONSTRAINT "Notification_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Notification_userId_createdAt_idx" ON "Notification"("userId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Notification_integrationId_milestone_userId_key" ON "Notification"("integrationId", "milestone", "userId");

-- AddForeignKey
ALTER TABLE "Notification" ADD CONSTRAINT "Notification_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Notification" ADD CONSTRAINT "Notification_integrationId_fkey" FOREIGN KEY ("integrationId") REFERENCES "PrivateIntegration"("id") ON DELETE CASCADE ON UPDATE CASCADE;
