-- AlterTable
ALTER TABLE "App" ADD COLUMN     "webhookDisabledAt" TIMESTAMP(3);
