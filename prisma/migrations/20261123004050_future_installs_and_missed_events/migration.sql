-- AlterTable
ALTER TABLE "Installation" ADD COLUMN     "approveAllLocations" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "installToFutureLocations" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "WebhookEvent" ADD COLUMN     "writerXid" BIGINT NOT NULL DEFAULT ((pg_current_xact_id())::text)::bigint;

-- CreateIndex
CREATE INDEX "Installation_companyId_installToFutureLocations_idx" ON "Installation"("companyId", "installToFutureLocations");

-- CreateIndex
CREATE INDEX "WebhookEvent_appId_writerXid_id_idx" ON "WebhookEvent"("appId", "writerXid", "id");

-- Hand-written: events written before this migration all carry the migration's own transaction id.
-- Give them negative positions in creation order instead, so they list first and oldest first.
UPDATE "WebhookEvent" e SET "writerXid" = o.n - o.total - 1
  FROM (SELECT id, row_number() OVER (ORDER BY "createdAt", id) AS n, count(*) OVER () AS total FROM "WebhookEvent") o
  WHERE e.id = o.id;
