import { KeyObject } from "node:crypto";
import { hashSecret, randomSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import type { TokenGrant } from "@/lib/generated/prisma/client";
import { createPrivateIntegration } from "@/lib/integrations/lifecycle";
import { AUTHORIZATION_CODE_TTL_MS } from "@/lib/oauth/authorize/issue-code";
import { REFRESH_TOKEN_TTL_MS } from "@/lib/oauth/grants/issue";
import { addTestAppKey } from "@/lib/testing/app-keys";
import { makeAgency, makeUser, testPassword } from "@/lib/testing/fixtures";
import { install, installAndExchange, makeApp } from "@/lib/testing/oauth";
import type { AssertionKey } from "./assertions";

/** What the load scenarios need, made through the lib functions the screens and endpoints use. */
export interface LoadSeed {
  companyId: string;
  locationId: string;
  /** A sub-account private integration of `locationId` (locations.readonly, contacts.write). */
  privateIntegrationToken: string;
  /** A Location access token of `locationId` (sub-account install). */
  locationAccessToken: string;
  /** A Company access token with oauth.write of an agency install on every sub-account. */
  companyAccessToken: string;
  /** Fresh single-use refresh tokens, each the live token of a Location grant of its own, and the app's client credentials. */
  refresh: { clientId: string; clientSecret: string; tokens: string[] };
  /** As many more of the same kind, for peer (L) (scripts/bench/peers/limit.ts): seeded only when (L) runs. */
  limitRefresh?: { clientId: string; clientSecret: string; tokens: string[] };
  /** Fresh single-use authorization codes of one Location install (no PKCE), and the app's client credentials. */
  codes: { clientId: string; clientSecret: string; codes: string[] };
  /**
   * Installation tokens (client_credentials + private_key_jwt): an app of its own with an
   * ES256 key stored as the app's page stores a generated one, installed on `companyId` (agency
   * install, every sub-account); its private key signs the assertions, its public JWK is the peer's too.
   */
  installation: { clientId: string; key: AssertionKey; publicJwk: Record<string, unknown> };
  /** An agency owner who signs in to the Private Integrations screen, and how many integrations it lists. */
  screen: { email: string; password: string; integrations: number };
}

/** The agency screen's list in (s): its server time is measured with 500 integrations. */
export const SCREEN_INTEGRATIONS = 500;

/** An agency of its own with `count` agency-level integrations, made by the lifecycle as the screen makes them. */
async function seedScreen(count: number): Promise<LoadSeed["screen"]> {
  const { owner } = await makeAgency({ locations: 1, privateIntegrationsLab: true });
  const scopes = ["locations.readonly", "users.readonly", "locations.write", "oauth.readonly"];
  for (let i = 0; i < count; i++) {
    await createPrivateIntegration(
      owner,
      { level: "agency", companyId: owner.companyId },
      { name: `Integration ${i + 1}`, description: `Bench integration ${i + 1}`, scopes: scopes.slice(0, 1 + (i % 4)) },
    );
  }
  return { email: owner.email, password: testPassword, integrations: count };
}

/**
 * `count` codes exactly as the install screen issues them (random secret, keyed hash, 10 minutes),
 * of the installation `code` came from: one install makes the installation, the rest are copies.
 */
async function seedCodes(code: string, count: number, now: Date): Promise<string[]> {
  const template = await db().authorizationCode.findUniqueOrThrow({ where: { codeHash: hashSecret(code) } });
  const codes: string[] = [];
  for (let done = 0; done < count; ) {
    const batch = Math.min(5_000, count - done);
    const data = [];
    for (let i = 0; i < batch; i++) {
      const secret = randomSecret(32);
      codes.push(secret);
      data.push({
        codeHash: hashSecret(secret),
        appId: template.appId,
        installationId: template.installationId,
        userId: template.userId,
        redirectUri: template.redirectUri,
        codeChallenge: null,
        scopes: template.scopes,
        expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS),
        createdAt: now,
      });
    }
    await db().authorizationCode.createMany({ data });
    done += batch;
  }
  return codes;
}

/** `count` refresh tokens, each the live token of a copy of `template` (a grant, a family, of its own). */
async function seedRefreshTokens(template: TokenGrant, count: number, now: Date): Promise<string[]> {
  const tokens: string[] = [];
  const expiresAt = new Date(now.getTime() + REFRESH_TOKEN_TTL_MS);
  for (let done = 0; done < count; ) {
    const batch = Math.min(5_000, count - done);
    const grants = [];
    const data = [];
    for (let i = 0; i < batch; i++) {
      const token = randomSecret(32);
      const grantId = `bench-grant-${randomSecret(9)}`;
      tokens.push(token);
      grants.push({ ...template, id: grantId, authorizationCodeId: null, createdAt: now });
      data.push({ tokenHash: hashSecret(token), grantId, expiresAt, createdAt: now });
    }
    await db().tokenGrant.createMany({ data: grants });
    await db().refreshToken.createMany({ data });
    done += batch;
  }
  return tokens;
}

/**
 * `refreshTokenCount` refresh tokens for our refreshes, and as many authorization codes;
 * `options.limitPeer`: that many for peer (L)'s own refresh-token supply too (only the runs that
 * start (L) consume it).
 */
export async function seedForLoad(
  refreshTokenCount: number,
  progress: (m: string) => void,
  options: { limitPeer?: number } = {},
): Promise<LoadSeed> {
  const agency = await makeAgency({ locations: 3, privateIntegrationsLab: true });
  const companyId = agency.company.id;
  const locationId = agency.locations[0]!.id;
  const { token: privateIntegrationToken } = await createPrivateIntegration(
    agency.owner,
    { level: "location", locationId },
    { name: "Bench", description: "npm run bench", scopes: ["locations.readonly", "contacts.write"] },
  );
  const user = await makeUser(companyId, "account_user", { locationIds: [locationId] });

  const locationApp = await makeApp(companyId);
  const location = await installAndExchange(user, locationApp, { level: "location", locationId });

  const agencyApp = await makeApp(companyId);
  const company = await installAndExchange(agency.owner, agencyApp, {
    level: "agency",
    locationIds: agency.locations.map((l) => l.id),
  });

  // Refresh tokens exactly as the token endpoint issues them (random secret, keyed hash, 365 days),
  // for an app of their own so the other scenarios' tokens never share their family. Each token is
  // the live token of a family of its own, as in production, where a family (one grant) has one
  // live refresh token at a time: 50 connections refreshing tokens of one family would measure a
  // contention on that grant's row lock that no real client produces.
  const refreshApp = await makeApp(companyId);
  const first = await installAndExchange(user, refreshApp, { level: "location", locationId });
  const { grant: template } = await db().refreshToken.findUniqueOrThrow({
    where: { id: String(first.refreshTokenId) },
    select: { grant: true },
  });
  const now = new Date();
  const tokens = await seedRefreshTokens(template, refreshTokenCount, now);
  // The same supply again for peer (L), which consumes tokens of our tables by its own statement.
  const limitTokens = options.limitPeer ? await seedRefreshTokens(template, options.limitPeer, now) : undefined;
  // Codes of an app of their own, so their grants never share a family with the other scenarios'.
  const codeApp = await makeApp(companyId);
  const { code } = await install(user, codeApp.app.clientId, { level: "location", locationId });
  const codes = await seedCodes(code, refreshTokenCount, now);
  // Installation tokens: an app of their own, so their grants never share an installation with (f)'s.
  const keyApp = await makeApp(companyId);
  await install(agency.owner, keyApp.app.clientId, { level: "agency", locationIds: agency.locations.map((l) => l.id) });
  const appKey = await addTestAppKey(keyApp.app.id, "ES256");
  const screen = await seedScreen(SCREEN_INTEGRATIONS);
  progress(
    `seeded: 1 agency, 3 sub-accounts, 1 private integration, 5 app installs (one with an ES256 app key), ${tokens.length} refresh tokens${limitTokens ? ` (and ${limitTokens.length} for peer (L))` : ""}, ${codes.length} authorization codes; an agency of ${screen.integrations} integrations for the screen`,
  );
  return {
    companyId,
    locationId,
    privateIntegrationToken,
    locationAccessToken: location.access_token,
    companyAccessToken: company.access_token,
    refresh: { clientId: refreshApp.app.clientId, clientSecret: refreshApp.clientSecret, tokens },
    limitRefresh: limitTokens && {
      clientId: refreshApp.app.clientId,
      clientSecret: refreshApp.clientSecret,
      tokens: limitTokens,
    },
    codes: { clientId: codeApp.app.clientId, clientSecret: codeApp.clientSecret, codes },
    installation: {
      clientId: keyApp.app.clientId,
      key: { privateKey: KeyObject.from(appKey.privateKey), kid: appKey.kid },
      publicJwk: appKey.publicJwk,
    },
    screen,
  };
}
