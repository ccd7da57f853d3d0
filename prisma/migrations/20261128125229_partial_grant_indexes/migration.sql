-- DropIndex
DROP INDEX "TokenGrant_authorizationCodeId_idx";

-- DropIndex
DROP INDEX "TokenGrant_parentGrantId_idx";

-- DropIndex
DROP INDEX "TokenGrant_revokedAt_idx";

-- CreateIndex
CREATE INDEX "TokenGrant_authorizationCodeId_idx" ON "TokenGrant"("authorizationCodeId") WHERE ("authorizationCodeId" IS NOT NULL);

-- CreateIndex
CREATE INDEX "TokenGrant_parentGrantId_idx" ON "TokenGrant"("parentGrantId") WHERE ("parentGrantId" IS NOT NULL);

-- CreateIndex
CREATE INDEX "TokenGrant_revokedAt_idx" ON "TokenGrant"("revokedAt") WHERE ("revokedAt" IS NOT NULL);
