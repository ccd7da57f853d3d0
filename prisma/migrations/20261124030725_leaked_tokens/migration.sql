-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "AuditAction" ADD VALUE 'private_integration_revoked_as_leaked';
ALTER TYPE "AuditAction" ADD VALUE 'refresh_token_revoked_as_leaked';

-- AlterTable
ALTER TABLE "PrivateIntegration" ADD COLUMN     "revokedAt" TIMESTAMP(3),
ADD COLUMN     "revokedReason" TEXT;
