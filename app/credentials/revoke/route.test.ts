import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { CREDENTIALS_CALLS_PER_HOUR } from "@/lib/credentials/limit";
import { db } from "@/lib/db/client";
import { getPrivateIntegration } from "@/lib/integrations/read";
import { generatePrivateIntegrationToken } from "@/lib/integrations/token";
import { apiClient, expectBearerError, expectError, freshAddress } from "@/lib/testing/api-client";
import { makeAgency, subAccountOwner, type TestAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { installAndExchange, makeApp, postRefreshGrant } from "@/lib/testing/oauth";
import { verifyAccessToken } from "@/lib/tokens/access-token";

const api = apiClient(apiRoutes);

let A: TestAgency;
let app: CreatedApp;
let locationId: string;

beforeAll(async () => {
  A = await makeAgency({ locations: 1, privateIntegrationsLab: true });
  app = await makeApp(A.company.id);
  locationId = A.locations[0]!.id;
});

/** Each test calls from an address of its own, so the hourly limit of one does not touch another. */
const revokeCredentials = (json: unknown, peer = freshAddress()) =>
  api.post("/credentials/revoke", { json, peer, version: null });

const readLocation = (token: string) => api.get(`/locations/${locationId}`, { token });

describe("POST /credentials/revoke", () => {
  it("a live private-integration token and a refresh token stop working at once", async () => {
    const { integration, token } = await makeIntegration(A, { locationId });
    const tokens = await installAndExchange(A.owner, app, { level: "agency", locationIds: [locationId] });
    expect((await readLocation(token)).status).toBe(200);
    expect((await verifyAccessToken(tokens.access_token)).ok).toBe(true);

    const answer = await revokeCredentials({ credentials: [token, tokens.refresh_token] });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ received: 2 });
    expect(answer.headers.get("cache-control")).toBe("no-store");

    // The caller is told why and what brings the integration back.
    expectBearerError(
      await readLocation(token),
      401,
      "invalid_token",
      /reported as leaked.*“Rotate and expire this token now” under Settings > Private Integrations/,
    );
    // The refresh token took its family with it: the access token issued beside it, and itself.
    expect((await verifyAccessToken(tokens.access_token)).ok).toBe(false);
    const refreshed = await postRefreshGrant(api, app, tokens.refresh_token);
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe("invalid_grant");

    const view = await getPrivateIntegration(A.owner, subAccountOwner(locationId), integration.id);
    expect(view.status).toBe("revoked");
    expect(view.revoked?.reason).toMatch(/reported as leaked/i);
    const audit = await db().auditLog.findMany({
      where: {
        companyId: A.company.id,
        action: { in: ["private_integration_revoked_as_leaked", "refresh_token_revoked_as_leaked"] },
      },
      select: { action: true, actorUserId: true, details: true },
    });
    expect(audit.map((a) => a.action).sort()).toEqual([
      "private_integration_revoked_as_leaked",
      "refresh_token_revoked_as_leaked",
    ]);
    expect(audit.every((a) => a.actorUserId === null)).toBe(true);
    // The audit log names the token by its hint, never the token.
    expect(JSON.stringify(audit)).not.toContain(token);
    expect(JSON.stringify(audit)).not.toContain(tokens.refresh_token);
  });

  it("unknown, invalid and already revoked tokens get the same 202 and body as live ones", async () => {
    const { token } = await makeIntegration(A, { locationId });
    const live = await revokeCredentials({ credentials: [token] });
    const again = await revokeCredentials({ credentials: [token] });
    const unknown = await revokeCredentials({ credentials: [generatePrivateIntegrationToken()] });
    const invalid = await revokeCredentials({ credentials: ["not a token at all"] });
    for (const answer of [live, again, unknown, invalid]) {
      expect(answer.status).toBe(202);
      expect(answer.text).toBe('{"received":1}');
    }
  });

  it.each([
    ["no tokens", { credentials: [] }],
    ["101 tokens", { credentials: Array.from({ length: 101 }, () => generatePrivateIntegrationToken()) }],
    ["credentials missing", {}],
    ["a token that is not a string", { credentials: [42] }],
    ["an unknown field", { credentials: ["pit-x"], extra: 1 }],
  ])("%s: 400 invalid_request with SPEC's error body", async (_name, body) => {
    const answer = await revokeCredentials(body);
    expectError(answer, 400, "invalid_request");
  });

  it("not JSON: 400 invalid_request", async () => {
    const answer = await api.post("/credentials/revoke", {
      body: "credentials=pit-x",
      contentType: "application/x-www-form-urlencoded",
      peer: freshAddress(),
      version: null,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_request");
  });

  it(`the ${CREDENTIALS_CALLS_PER_HOUR + 1}st call of an hour from one address is 429 with Retry-After; others still pass`, async () => {
    const address = freshAddress();
    const body = { credentials: [generatePrivateIntegrationToken()] };
    for (let i = 0; i < CREDENTIALS_CALLS_PER_HOUR; i++) {
      // Every call counts, malformed ones too.
      const answer = await revokeCredentials(i % 2 ? body : { credentials: [] }, address);
      expect(answer.status).toBe(i % 2 ? 202 : 400);
    }
    const refused = await revokeCredentials(body, address);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe("rate_limited");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect((await revokeCredentials(body)).status).toBe(202);
  });

  it("counts an IPv6 client by its /64: another address of the same /64 is the same caller", async () => {
    const prefix = freshAddress().replace(/::1$/, "");
    const body = { credentials: [generatePrivateIntegrationToken()] };
    for (let i = 0; i < CREDENTIALS_CALLS_PER_HOUR; i++) {
      expect((await revokeCredentials(body, `${prefix}::${(i + 1).toString(16)}`)).status).toBe(202);
    }
    const sameSlash64 = await revokeCredentials(body, `${prefix.toUpperCase()}:ffff:ffff:ffff:ffff`);
    expect(sameSlash64.status).toBe(429);
    expect(sameSlash64.body.error).toBe("rate_limited");
    expect((await revokeCredentials(body)).status).toBe(202);
  });

  it("the GitHub partner endpoint counts in the same hourly limit", async () => {
    const address = freshAddress();
    const body = { credentials: [generatePrivateIntegrationToken()] };
    for (let i = 0; i < CREDENTIALS_CALLS_PER_HOUR - 1; i++)
      expect((await revokeCredentials(body, address)).status).toBe(202);
    const github = await api.post("/credentials/github-secret-scanning", {
      body: "[]",
      contentType: "application/json",
      peer: address,
      version: null,
    });
    expect(github.status).not.toBe(429);
    expect((await revokeCredentials(body, address)).status).toBe(429);
  });
});
