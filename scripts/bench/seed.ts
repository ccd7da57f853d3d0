import { hashSecret, randomSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { createPrivateIntegration } from "@/lib/integrations/lifecycle";
import { REFRESH_TOKEN_TTL_MS } from "@/lib/oauth/grants/issue";
import { makeAgency, makeUser } from "@/lib/testing/fixtures";
import { installAndExchange, makeApp } from "@/lib/testing/oauth";

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
  /** Fresh single-use refresh tokens of one Location grant, and the app's client credentials. */
  refresh: { clientId: string; clientSecret: string; tokens: string[] };
}

export async function seedForLoad(refreshTokenCount: number, progress: (m: string) => void): Promise<LoadSeed> {
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
  // for a grant of their own app so the other scenarios' tokens never share their family.
  const refreshApp = await makeApp(companyId);
  const first = await installAndExchange(user, refreshApp, { level: "location", locationId });
  const { grantId } = await db().refreshToken.findUniqueOrThrow({
    where: { id: String(first.refreshTokenId) },
    select: { grantId: true },
  });
  const tokens: string[] = [];
  const now = new Date();
  const expiresAt = new Date(now.getTime() + REFRESH_TOKEN_TTL_MS);
  for (let done = 0; done < refreshTokenCount; ) {
    const batch = Math.min(5_000, refreshTokenCount - done);
    const data = [];
    for (let i = 0; i < batch; i++) {
      const token = randomSecret(32);
      tokens.push(token);
      data.push({ tokenHash: hashSecret(token), grantId, expiresAt, createdAt: now });
    }
    await db().refreshToken.createMany({ data });
    done += batch;
  }
  progress(`seeded: 1 agency, 3 sub-accounts, 1 private integration, 3 app installs, ${tokens.length} refresh tokens`);
  return {
    companyId,
    locationId,
    privateIntegrationToken,
    locationAccessToken: location.access_token,
    companyAccessToken: company.access_token,
    refresh: { clientId: refreshApp.app.clientId, clientSecret: refreshApp.clientSecret, tokens },
  };
}
