-- CreateEnum
CREATE TYPE "PrivateIntegrationTokenSlot" AS ENUM ('current', 'previous');

-- DropIndex
DROP INDEX "PrivateIntegrationToken_integrationId_idx";

-- AlterTable
ALTER TABLE "PrivateIntegrationToken" ADD COLUMN     "slot" "PrivateIntegrationTokenSlot";

-- CreateIndex
CREATE UNIQUE INDEX "PrivateIntegrationToken_integrationId_slot_key" ON "PrivateIntegrationToken"("integrationId", "slot");
