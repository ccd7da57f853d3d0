import { createHash, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { resetSecretScanningKeys, secretScanningKeyFetches } from "@/lib/credentials/github-secret-scanning";
import { resetEnvCache } from "@/lib/env";
import { getPrivateIntegration } from "@/lib/integrations/read";
import { generatePrivateIntegrationToken } from "@/lib/integrations/token";
import { verifyPrivateIntegrationToken } from "@/lib/integrations/verify";
import { apiClient, expectError, freshAddress } from "@/lib/testing/api-client";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";

// GitHub's partner call, outside the versioned API: no Version.
const api = apiClient(apiRoutes, { version: null });

/** A P-256 key pair as GitHub publishes it: the public key as PEM under an identifier. */
function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const id = createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("hex");
  return { id, privateKey, pem: publicKey.export({ type: "spki", format: "pem" }).toString() };
}

const keyA = keyPair();
const keyB = keyPair();
/** What the key server publishes; tests add keys to it. */
let published = [keyA];
let server: Server;
let A: TestAgency;

beforeAll(async () => {
  server = createServer((_request, response) => {
    const body = {
      public_keys: published.map((k, i) => ({ key_identifier: k.id, key: k.pem, is_current: i === 0 })),
    };
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  process.env.SECRET_SCANNING_KEYS_URL = `http://127.0.0.1:${port}/meta/public_keys/secret_scanning`;
  resetEnvCache();
  resetSecretScanningKeys();
  A = await makeAgency({ locations: 1, privateIntegrationsLab: true });
});

afterAll(async () => {
  delete process.env.SECRET_SCANNING_KEYS_URL;
  resetEnvCache();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/**
 * GitHub's report of `body`, signed (over `signed`, the body unless a test changes it after signing).
 * Every call from an address of its own: the hourly /credentials limit is tested beside /credentials/revoke.
 */
function report(body: string, keyId: string | undefined, privateKey: KeyObject | undefined, signed = body) {
  const headers: Record<string, string> = {};
  if (keyId) headers["github-public-key-identifier"] = keyId;
  if (privateKey)
    headers["github-public-key-signature"] = sign("sha256", Buffer.from(signed), privateKey).toString("base64");
  return api.post("/credentials/github-secret-scanning", {
    body,
    contentType: "application/json",
    peer: freshAddress(),
    headers,
  });
}

const match = (token: string) => ({
  token,
  type: "platform_private_integration_token",
  url: "https://github.com/octo-org/docs/issues/12",
  source: "issue",
});
const tokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

describe("POST /credentials/github-secret-scanning", () => {
  beforeEach(() => {
    published = [keyA];
  });

  it("a good signature: live tokens revoked as true positives, others false positives, with the token's SHA-256", async () => {
    const { integration, token } = await makeIntegration(A, { name: "Pasted in an issue" });
    const unknown = generatePrivateIntegrationToken();
    const body = JSON.stringify([match(token), match(unknown)]);
    const answer = await report(body, keyA.id, keyA.privateKey);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      { token_hash: tokenHash(token), token_type: "platform_private_integration_token", label: "true_positive" },
      { token_hash: tokenHash(unknown), token_type: "platform_private_integration_token", label: "false_positive" },
    ]);
    expect((await verifyPrivateIntegrationToken(token)).ok).toBe(false);
    const view = await getPrivateIntegration(A.owner, { level: "agency", companyId: A.company.id }, integration.id);
    expect(view.status).toBe("revoked");
    expect(view.revoked?.reason).toContain("GitHub secret scanning");
    expect(view.revoked?.reason).toContain("https://github.com/octo-org/docs/issues/12");
    // Reported again: no longer live, so a false positive.
    const again = await report(body, keyA.id, keyA.privateKey);
    expect((again.body as unknown as { label: string }[])[0]?.label).toBe("false_positive");
  });

  it("several places in one report: labels in the order reported, each reason naming where its token was", async () => {
    const owner = { level: "agency", companyId: A.company.id } as const;
    const one = await makeIntegration(A, { name: "One" });
    const two = await makeIntegration(A, { name: "Two" });
    const gist = { ...match(two.token), url: "https://gist.github.com/octo/1", source: "gist" };
    const unknown = generatePrivateIntegrationToken();
    const body = JSON.stringify([match(one.token), match(unknown), gist]);
    const answer = await report(body, keyA.id, keyA.privateKey);
    expect((answer.body as unknown as { label: string }[]).map((l) => l.label)).toEqual([
      "true_positive",
      "false_positive",
      "true_positive",
    ]);
    expect((await getPrivateIntegration(A.owner, owner, one.integration.id)).revoked?.reason).toContain("issues/12");
    expect((await getPrivateIntegration(A.owner, owner, two.integration.id)).revoked?.reason).toContain(
      "gist.github.com",
    );
  });

  it.each([
    ["signed by another key under A's id", () => report("[]", keyA.id, keyB.privateKey)],
    [
      "a body changed after signing",
      () => {
        const signed = JSON.stringify([match(generatePrivateIntegrationToken())]);
        const body = JSON.stringify([match(generatePrivateIntegrationToken())]);
        return report(body, keyA.id, keyA.privateKey, signed);
      },
    ],
    ["no signature", () => report("[]", keyA.id, undefined)],
    ["no key id", () => report("[]", undefined, keyA.privateKey)],
  ])("%s: 401 with SPEC's error body, nothing revoked", async (_name, call) => {
    const answer = await call();
    expectError(answer, 401, "invalid_client");
  });

  it("an unknown key id fetches the keys again (once, at most once a second); a key still unknown is 401", async () => {
    // The keys were fetched by the tests above; GitHub then starts signing with a new key.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    published = [keyA, keyB];
    const before = secretScanningKeyFetches();
    const body = JSON.stringify([match(generatePrivateIntegrationToken())]);
    const answer = await report(body, keyB.id, keyB.privateKey);
    expect(answer.status).toBe(200);
    expect(secretScanningKeyFetches()).toBe(before + 1);
    // Known now: no fetch.
    expect((await report(body, keyB.id, keyB.privateKey)).status).toBe(200);
    expect(secretScanningKeyFetches()).toBe(before + 1);
    // A forged id right after: refused without hammering the key server.
    const forged = keyPair();
    expect((await report(body, forged.id, forged.privateKey)).status).toBe(401);
    expect(secretScanningKeyFetches()).toBe(before + 1);
  });

  it("a signed body that is not a list of matches: 400 invalid_request", async () => {
    const answer = await report(JSON.stringify({ token: "pit-x" }), keyA.id, keyA.privateKey);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_request");
  });

  it("unset SECRET_SCANNING_KEYS_URL: 404", async () => {
    const url = process.env.SECRET_SCANNING_KEYS_URL;
    delete process.env.SECRET_SCANNING_KEYS_URL;
    resetEnvCache();
    try {
      const answer = await report("[]", keyA.id, keyA.privateKey);
      expect(answer.status).toBe(404);
      expect(answer.body.error).toBe("not_found");
    } finally {
      process.env.SECRET_SCANNING_KEYS_URL = url;
      resetEnvCache();
    }
  });
});
