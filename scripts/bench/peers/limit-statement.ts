// Peer (L)'s one statement per rotating refresh (./limit.ts serves it; ../refresh-cost.ts measures it
// beside ours): consume the presented token, then write its successor and the access token's row.
// $1 token hash, $2 app id, $3 successor id, $4 successor hash, $5 successor expiry, $6 now,
// $7 access token jti, $8 access token expiry.
export const LIMIT_ROTATE = `WITH consumed AS (
      UPDATE "RefreshToken" SET "consumedAt" = $6 WHERE "tokenHash" = $1 AND "consumedAt" IS NULL AND "expiresAt" > $6
      RETURNING "grantId"
    ),
    grant_row AS (
      SELECT g.id, g."userId", g."companyId", g."locationId", g.scopes, g."userType"::text AS "userType"
      FROM "TokenGrant" g JOIN consumed c ON g.id = c."grantId" WHERE g."revokedAt" IS NULL AND g."appId" = $2
    ),
    successor AS (
      INSERT INTO "RefreshToken" (id, "tokenHash", "grantId", "expiresAt", "createdAt")
      SELECT $3, $4, id, $5, $6 FROM grant_row RETURNING id
    ),
    access AS (
      INSERT INTO "AccessToken" (jti, "grantId", "expiresAt", "createdAt")
      SELECT $7, id, $8, $6 FROM grant_row RETURNING jti
    )
    SELECT * FROM grant_row`;
