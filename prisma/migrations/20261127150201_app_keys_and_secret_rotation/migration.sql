-- CreateEnum
CREATE TYPE "AppKeySource" AS ENUM ('public_key', 'generated', 'jwks_url');

-- AlterTable
ALTER TABLE "App" ADD COLUMN     "previousClientSecretExpiresAt" TIMESTAMP(3),
ADD COLUMN     "previousClientSecretHash" TEXT,
ADD COLUMN     "previousClientSecretHint" TEXT;

-- AlterTable
ALTER TABLE "TokenGrant" ADD COLUMN     "installationToken" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "AppKey" (
    "id" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "source" "AppKeySource" NOT NULL,
    "kid" TEXT,
    "publicJwk" JSONB,
    "jwksUrl" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "lastUsedKid" TEXT,

    CONSTRAINT "AppKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ClientAssertion" (
    "appId" TEXT NOT NULL,
    "jti" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ClientAssertion_pkey" PRIMARY KEY ("appId","jti")
);

-- CreateTable
CREATE TABLE "ClientSecretUse" (
    "secretHash" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "lastUsedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ClientSecretUse_pkey" PRIMARY KEY ("secretHash")
);

-- CreateIndex
CREATE INDEX "AppKey_appId_idx" ON "AppKey"("appId");

-- CreateIndex
CREATE UNIQUE INDEX "AppKey_appId_kid_key" ON "AppKey"("appId", "kid");

-- CreateIndex
CREATE INDEX "ClientAssertion_expiresAt_idx" ON "ClientAssertion"("expiresAt");

-- CreateIndex
CREATE INDEX "ClientSecretUse_appId_idx" ON "ClientSecretUse"("appId");

-- AddForeignKey
ALTER TABLE "AppKey" ADD CONSTRAINT "AppKey_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: an app's keys are cached per process beside the app (lib/oauth/client-assertion.ts),
-- so adding or removing one empties every instance's read cache, as a change of the app does.
-- Only INSERT and DELETE: the last-used columns change often and change no answer.
CREATE TRIGGER "AppKey_token_state" AFTER INSERT OR DELETE OR TRUNCATE
  ON "AppKey" FOR EACH STATEMENT EXECUTE FUNCTION "token_state_notify"();
