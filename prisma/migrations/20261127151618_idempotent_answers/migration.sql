-- AlterTable
ALTER TABLE "PrivateIntegrationToken" ADD COLUMN     "shownAt" TIMESTAMP(3) DEFAULT CURRENT_TIMESTAMP;

-- CreateTable
CREATE TABLE "IdempotentAnswer" (
    "actorKey" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "requestHash" TEXT NOT NULL,
    "answerEncrypted" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IdempotentAnswer_pkey" PRIMARY KEY ("actorKey","key")
);

-- CreateIndex
CREATE INDEX "IdempotentAnswer_expiresAt_idx" ON "IdempotentAnswer"("expiresAt");
