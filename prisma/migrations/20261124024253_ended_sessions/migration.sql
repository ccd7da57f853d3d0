-- CreateTable
CREATE TABLE "EndedSession" (
    "sessionId" TEXT NOT NULL,
    "endedAt" TIMESTAMP(3) NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EndedSession_pkey" PRIMARY KEY ("sessionId")
);

-- CreateIndex
CREATE INDEX "EndedSession_expiresAt_idx" ON "EndedSession"("expiresAt");
