-- Hand-written data migration (issue 15): until this release an /oauth/locationToken exchange that
-- ran at the same time as a revocation could commit a Location grant that the revocation missed
-- (lib/oauth/location-token.ts now locks and re-checks, and grants/revoke-grants.ts revokes children
-- after locking their parents). Revoke every Location grant left so: its parent grant is revoked
-- or gone, its installation is uninstalled (installing again would bring it back), or its
-- sub-account is no longer chosen. Times are stored in UTC.
-- @prisma/adapter-pg splits a migration at every semicolon: this file has one, at its end.
UPDATE "TokenGrant" AS c SET "revokedAt" = (now() AT TIME ZONE 'UTC')
WHERE c."parentGrantId" IS NOT NULL AND c."revokedAt" IS NULL AND (
  NOT EXISTS (SELECT 1 FROM "TokenGrant" p WHERE p."id" = c."parentGrantId" AND p."revokedAt" IS NULL)
  OR EXISTS (SELECT 1 FROM "Installation" i WHERE i."id" = c."installationId" AND i."status" <> 'installed')
  OR NOT EXISTS (SELECT 1 FROM "InstallationLocation" l
                 WHERE l."installationId" = c."installationId" AND l."locationId" = c."locationId")
);
