-- AlterEnum
ALTER TYPE "AuditAction" ADD VALUE 'private_integration_maximum_lifetime_changed';
