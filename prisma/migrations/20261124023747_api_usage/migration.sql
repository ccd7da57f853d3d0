-- CreateEnum
CREATE TYPE "UsageSubject" AS ENUM ('integration', 'installation');

-- CreateTable
CREATE TABLE "ApiUsageHour" (
    "subjectType" "UsageSubject" NOT NULL,
    "subjectId" TEXT NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "ok" INTEGER NOT NULL DEFAULT 0,
    "refused" INTEGER NOT NULL DEFAULT 0,
    "limited" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "ApiUsageHour_pkey" PRIMARY KEY ("subjectType","subjectId","hour")
);

-- CreateTable
CREATE TABLE "IntegrationLastRefusal" (
    "integrationId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "address" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "errorCode" TEXT NOT NULL,
    "description" TEXT NOT NULL,

    CONSTRAINT "IntegrationLastRefusal_pkey" PRIMARY KEY ("integrationId")
);

-- CreateIndex
CREATE INDEX "ApiUsageHour_hour_idx" ON "ApiUsageHour"("hour");

-- CreateIndex
CREATE INDEX "IntegrationLastRefusal_at_idx" ON "IntegrationLastRefusal"("at");
