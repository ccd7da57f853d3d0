-- AlterTable
ALTER TABLE "AuditLog" ADD COLUMN     "actorIntegrationId" TEXT;

-- AlterTable
ALTER TABLE "PrivateIntegration" ADD COLUMN     "createdByIntegrationId" TEXT,
ALTER COLUMN "createdByUserId" DROP NOT NULL;
