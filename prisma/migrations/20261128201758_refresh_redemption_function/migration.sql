-- Written by scripts/redemption-migration.ts from lib/oauth/grants/redemption.ts: the refresh's one
-- statement as a function, whose plans each backend keeps (a transaction-mode pooler prepares
-- nothing). Prisma does not model functions, so keep this file when squashing migrations.

CREATE OR REPLACE FUNCTION "redeem_refresh_token"(p1 text, p2 text, p3 text, p4 text, p5 text, p6 text, p7 text, p8 text, p9 text, p10 text, p11 text, p12 text, p13 text, p14 text, p15 text, p16 text, p17 text, p18 text, p19 text, p20 text) RETURNS json LANGUAGE plpgsql VOLATILE
  AS U&'DECLARE result json\003B
BEGIN
  WITH family AS MATERIALIZED (
      SELECT g.id AS "grantId", g."appId", g."installationId", g."userType"::text AS "userType", g."companyId",
             g."locationId", g."userId", g.scopes, g."revokedAt"
      FROM "TokenGrant" g
      WHERE g.id = (SELECT r."grantId" FROM "RefreshToken" r WHERE r."tokenHash" = p1)
      FOR SHARE
    ),
    used AS MATERIALIZED (
      SELECT r.id, r."consumedAt", r."expiresAt" FROM "RefreshToken" r
      WHERE r."tokenHash" = p2 AND r."grantId" = (SELECT "grantId" FROM family)
      FOR UPDATE
    ),
    client AS MATERIALIZED (
      SELECT NOT EXISTS (
        SELECT 1 FROM "App" a
        WHERE a.id = p3 AND (p4::text IS NULL OR "a"."clientSecretHash" = p5::text
    OR ("a"."previousClientSecretHash" = p6::text AND "a"."previousClientSecretExpiresAt" > p7::timestamp(3)))
      ) AS changed
    ),
    decision AS MATERIALIZED (
      SELECT u.id, u."consumedAt", f.*, i."versionId", i.scopes AS "installationScopes",
             i."approveAllLocations", i."installToFutureLocations",
             CASE
               WHEN c.changed THEN ''client_changed''
               WHEN f."appId" <> p8 THEN ''other_client''
               WHEN u."consumedAt" IS NOT NULL
                    AND NOT COALESCE(u."consumedAt" > p9::timestamp(3), false) THEN ''reused''
               WHEN u."expiresAt" <= p10::timestamp(3) THEN ''expired''
               WHEN f."revokedAt" IS NOT NULL THEN ''revoked''
               WHEN i.status <> ''installed'' THEN ''uninstalled''
               WHEN p11::text IS NOT NULL AND f."userType" <> p12::text THEN ''user_type''
             END AS refusal
      FROM used u
      JOIN family f ON true
      JOIN "Installation" i ON i.id = f."installationId"
      CROSS JOIN client c
    ),
    consumed AS (
      UPDATE "RefreshToken" r SET "consumedAt" = p13::timestamp(3)
      FROM decision s
      WHERE r.id = s.id AND s.refusal IS NULL AND s."consumedAt" IS NULL AND r."consumedAt" IS NULL
      RETURNING r.id
    ),
    
    issued_refresh AS (
      INSERT INTO "RefreshToken" (id, "tokenHash", "grantId", "expiresAt", "createdAt")
      SELECT p14, p15, s."grantId",
             p16::timestamp(3), p17::timestamp(3)
      FROM (SELECT "grantId" FROM decision WHERE refusal IS NULL) s
      RETURNING id
    ),
    issued_access AS (
      INSERT INTO "AccessToken" (jti, "grantId", "expiresAt", "createdAt")
      SELECT p18, s."grantId", p19::timestamp(3), p20::timestamp(3)
      FROM (SELECT "grantId" FROM decision WHERE refusal IS NULL) s
      RETURNING jti
    )
    SELECT to_json(r) INTO result FROM (
    SELECT d.id IS NOT NULL AS found,
           COALESCE(d.refusal, CASE WHEN c.changed THEN ''client_changed'' END) AS refusal,
           EXISTS (SELECT 1 FROM issued_access) AS issued,
           d."grantId", d."userType", d."companyId", d."locationId", d."userId", d.scopes, d."consumedAt",
           d."versionId", d."installationScopes", d."approveAllLocations", d."installToFutureLocations",
           -- Only a Company token''s answer lists the approved sub-accounts (tokenResponse).
           CASE WHEN d."userType" = ''Company'' THEN
             ARRAY(SELECT l."locationId" FROM "InstallationLocation" l
                   WHERE l."installationId" = d."installationId" ORDER BY l."locationId")
           ELSE ''{}''::text[] END AS "approvedLocations"
    FROM client c LEFT JOIN decision d ON true
    ) r\003B
  RETURN result\003B
END';
