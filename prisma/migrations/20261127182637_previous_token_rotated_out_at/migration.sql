-- AlterTable
ALTER TABLE "PrivateIntegrationToken" ADD COLUMN     "rotatedOutAt" TIMESTAMP(3);

-- Rotations already under way: their new token was issued when the rotation began
UPDATE "PrivateIntegrationToken" p SET "rotatedOutAt" = c."createdAt"
FROM "PrivateIntegrationToken" c
WHERE p.slot = 'previous' AND c.slot = 'current' AND c."integrationId" = p."integrationId";
