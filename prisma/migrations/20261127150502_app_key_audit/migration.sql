-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "AuditAction" ADD VALUE 'app_key_added';
ALTER TYPE "AuditAction" ADD VALUE 'app_key_removed';
ALTER TYPE "AuditAction" ADD VALUE 'app_jwks_url_set';
