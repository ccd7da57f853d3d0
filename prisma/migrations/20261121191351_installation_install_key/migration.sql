-- AlterTable
ALTER TABLE "Installation" ADD COLUMN     "installKey" TEXT NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "Installation_installKey_key" ON "Installation"("installKey");
