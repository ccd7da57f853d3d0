-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "responseBody" TEXT;
