// Over 250 lines on purpose: client authentication against a cache that may be a moment old, on one and on two instances, sharing one app.
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { HttpError } from "@/lib/api/http-error";
import { readForm } from "@/lib/api/parse";
import {
  revokePreviousClientSecret,
  revokePreviousClientSecretInDatabase,
  rotateClientSecret,
  rotateClientSecretInDatabase,
} from "@/lib/apps/secrets";
import { hashSecret } from "@/lib/crypto/secrets";
import { databaseHandle } from "@/lib/db/client";
import { readCacheStats } from "@/lib/db/read-cache";
import { basicAuth } from "@/lib/testing/api-client";
import { waitFor } from "@/lib/testing/elsewhere";
import { makeAgency } from "@/lib/testing/fixtures";
import { formRequest, install, installAndExchange, makeApp } from "@/lib/testing/oauth";
import { secondInstance } from "@/lib/testing/second-instance";
import { type AuthenticatedClient, authenticateCachedClient, authenticateClient, ClientChanged } from "./client-auth";
import { findAppByClientId } from "./client-lookup";
import { authorizationCodeGrant } from "./grants/authorization-code";
import { refreshTokenGrant } from "./grants/refresh-token";
import { tokenEndpoint } from "./token-endpoint";

// The real lookup, counted: a refusal must cost the same database reads whether the id exists.
vi.mock("./client-lookup", async (importOriginal) => {
  const original = await importOriginal<typeof import("./client-lookup")>();
  return { findAppByClientId: vi.fn(original.findAppByClientId) };
});

/**
 * The token endpoint may read the app from the read cache, which another instance's change
 * empties only when its NOTIFY arrives. Each grant's statement checks that the app still accepts
 * the hash the client was authenticated with (the current secret's, or the previous one's inside
 * its overlap), so a secret dropped by a second rotation or revoked stops at once all the same,
 * and a refused request consumes nothing.
 */
describe("the token endpoint with a client secret dropped a moment ago", () => {
  it("refuses it (invalid_client) without consuming the refresh token or the code; the previous one works", async () => {
    const agency = await makeAgency({ locations: 1 });
    const app = await makeApp(agency.company.id);
    const locationId = agency.locations[0]!.id;
    const first = await installAndExchange(agency.owner, app, { level: "agency", locationIds: [locationId] });
    const refresh = (secret: string, token: string) =>
      tokenEndpoint(
        formRequest("/oauth/token", {
          grant_type: "refresh_token",
          client_id: app.app.clientId,
          client_secret: secret,
          refresh_token: token,
        }),
      );
    // Reads the app (into the cache, when it is listening) with the current secret.
    const second = await refresh(app.clientSecret, first.refresh_token);
    const { code } = await install(agency.owner, app.app.clientId, { level: "agency", locationIds: [locationId] });
    // Two rotations: the first secret is dropped (only one previous), the second one is the previous.
    const { clientSecret: previous } = await rotateClientSecret(app.app.id, {}, agency.owner);
    const { clientSecret } = await rotateClientSecret(app.app.id, {}, agency.owner);

    await expect(refresh(app.clientSecret, second.refresh_token as string)).rejects.toMatchObject({
      code: "invalid_client",
    });
    const exchange = (secret: string) =>
      tokenEndpoint(
        formRequest("/oauth/token", {
          grant_type: "authorization_code",
          client_id: app.app.clientId,
          client_secret: secret,
          code,
          user_type: "Company",
        }),
      );
    await expect(exchange(app.clientSecret)).rejects.toMatchObject({ code: "invalid_client" });

    const third = await refresh(previous, second.refresh_token as string);
    await revokePreviousClientSecret(app.app.id, agency.owner);
    await expect(refresh(previous, third.refresh_token as string)).rejects.toMatchObject({ code: "invalid_client" });
    await expect(exchange(previous)).rejects.toMatchObject({ code: "invalid_client" });

    expect((await refresh(clientSecret, third.refresh_token as string)).refresh_token).toEqual(expect.any(String));
    expect((await exchange(clientSecret)).refresh_token).toEqual(expect.any(String));
  });
});

/**
 * The same on PostgreSQL with the change made by another instance: this one still holds the app,
 * with the dropped secret, in its read cache (until the NOTIFY arrives). A client authenticated
 * from that cache a moment before is refused by the grant's own statement, deterministically.
 */
describe.runIf(databaseHandle().kind === "postgresql")("a rotation or revocation made by another instance", () => {
  const other = secondInstance();

  it("stops a dropped or revoked secret at once though this instance has the app in its read cache", async () => {
    const agency = await makeAgency({ locations: 1 });
    const app = await makeApp(agency.company.id);
    const locationId = agency.locations[0]!.id;
    const target = { level: "agency" as const, locationIds: [locationId] };
    const first = await installAndExchange(agency.owner, app, target);
    const { clientSecret: s1 } = await rotateClientSecret(app.app.id, {}, agency.owner);
    const s0 = app.clientSecret;
    const refreshForm = (secret: string, token: string) => ({
      grant_type: "refresh_token",
      client_id: app.app.clientId,
      client_secret: secret,
      refresh_token: token,
    });
    const codeForm = (secret: string, code: string) => ({
      grant_type: "authorization_code",
      client_id: app.app.clientId,
      client_secret: secret,
      code,
      user_type: "Company",
    });
    /** The client as the cache authenticates it with `secret`, once the cache holds the app. */
    const fromCache = async (form: Record<string, string>) => {
      let client: AuthenticatedClient | undefined;
      await waitFor(async () => {
        await authenticateClient(formRequest("/oauth/token", form), form, { cached: true });
        client = authenticateCachedClient(formRequest("/oauth/token", form), form);
        return client !== undefined;
      });
      return client as AuthenticatedClient;
    };
    const refresh = (form: Record<string, string>) => tokenEndpoint(formRequest("/oauth/token", form));

    // s0 is the previous secret, answered from the cache.
    const { code } = await install(agency.owner, app.app.clientId, target);
    const staleForRefresh = await fromCache(refreshForm(s0, first.refresh_token));
    expect(staleForRefresh.secretHash).toBe(hashSecret(s0));
    const staleForCode = await fromCache(codeForm(s0, code));

    // Another instance rotates again: s0 is dropped at once, s1 becomes the previous secret.
    const { clientSecret: s2 } = await other().$transaction((tx) =>
      rotateClientSecretInDatabase(tx, app.app.id, "24h", agency.owner, new Date()),
    );
    const now = new Date();
    await expect(
      refreshTokenGrant({ form: refreshForm(s0, first.refresh_token), client: staleForRefresh, now }),
    ).rejects.toBeInstanceOf(ClientChanged);
    await expect(
      authorizationCodeGrant({ form: codeForm(s0, code), client: staleForCode, now }),
    ).rejects.toBeInstanceOf(ClientChanged);
    await expect(refresh(refreshForm(s0, first.refresh_token))).rejects.toMatchObject({ code: "invalid_client" });
    await expect(refresh(codeForm(s0, code))).rejects.toMatchObject({ code: "invalid_client" });

    // Nothing was consumed: s1, the previous secret now, refreshes; then another instance revokes it.
    const second = (await refresh(refreshForm(s1, first.refresh_token))) as { refresh_token: string };
    const staleS1 = await fromCache(refreshForm(s1, second.refresh_token));
    expect(staleS1.secretHash).toBe(hashSecret(s1));
    await other().$transaction((tx) => revokePreviousClientSecretInDatabase(tx, app.app.id, agency.owner));
    await expect(
      refreshTokenGrant({ form: refreshForm(s1, second.refresh_token), client: staleS1, now: new Date() }),
    ).rejects.toBeInstanceOf(ClientChanged);
    await expect(refresh(refreshForm(s1, second.refresh_token))).rejects.toMatchObject({ code: "invalid_client" });

    expect((await refresh(refreshForm(s2, second.refresh_token))).refresh_token).toEqual(expect.any(String));
    expect((await refresh(codeForm(s2, code))).refresh_token).toEqual(expect.any(String));
  });
});

describe("invalid_client says the same whether or not the client_id exists (SPEC.md, edges)", () => {
  async function refusal(clientId: string, secret: string, basic: boolean): Promise<HttpError> {
    const body = { grant_type: "refresh_token", refresh_token: "x", client_id: clientId, client_secret: secret };
    const request = basic
      ? formRequest(
          "/oauth/token",
          { ...body, client_id: undefined, client_secret: undefined },
          {
            authorization: basicAuth(clientId, secret),
          },
        )
      : formRequest("/oauth/token", body);
    const error = await tokenEndpoint(request).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(error instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(error)}`);
    return error;
  }

  it.each([
    ["form", false],
    ["HTTP Basic", true],
  ])(
    "%s: an unknown client_id and a wrong secret read identically, each after one database read",
    async (_how, basic) => {
      const agency = await makeAgency({ locations: 1 });
      const app = await makeApp(agency.company.id);
      // Warm the read cache with the app, as a busy endpoint would have it.
      await refusal(app.app.clientId, app.clientSecret, basic);
      const lookups = vi.mocked(findAppByClientId);

      lookups.mockClear();
      const wrongSecret = await refusal(app.app.clientId, "wrong-secret", basic);
      const wrongSecretReads = lookups.mock.calls.length;
      lookups.mockClear();
      const unknownId = await refusal("no-such-client-id", "wrong-secret", basic);
      const unknownIdReads = lookups.mock.calls.length;

      expect(wrongSecret.code).toBe("invalid_client");
      expect(unknownId.code).toBe("invalid_client");
      expect(unknownId.description).toBe(wrongSecret.description);
      expect(unknownId.headers).toEqual(wrongSecret.headers);
      expect(unknownId.description).not.toMatch(/no app has|does not match this client_id/i);
      expect({ unknownIdReads, wrongSecretReads }).toEqual({ unknownIdReads: 1, wrongSecretReads: 1 });
    },
  );
});

/** What a call answered: its value, or the refusal it threw. */
async function valueOrRefusal<T>(call: () => T | Promise<T>): Promise<{ value: T } | { refused: unknown }> {
  try {
    return { value: await call() };
  } catch (error) {
    return { refused: error instanceof HttpError ? { code: error.code, description: error.description } : error };
  }
}

describe("the cached client answered at once (the refresh's path) agrees with authenticateClient", () => {
  it("for every shape of presented credentials: the same refusal, the same client, or no answer", async () => {
    const agency = await makeAgency({ locations: 1 });
    const app = await makeApp(agency.company.id);
    const id = app.app.clientId;
    // Warm the read cache with the app, as a busy endpoint has it.
    await waitFor(async () => {
      await authenticateClient(
        formRequest("/oauth/token", { client_id: id, client_secret: app.clientSecret }),
        {
          client_id: id,
          client_secret: app.clientSecret,
        },
        { cached: true },
      );
      return readCacheStats().listening;
    });
    const value = fc.option(fc.constantFrom(id, app.clientSecret, "", "wrong", `${id}:x`, "a%zz", "\u0000"), {
      nil: undefined,
    });
    const credentials = fc.record({
      clientId: fc.oneof(value, fc.string()),
      secret: fc.oneof(value, fc.string()),
      basic: fc.option(
        fc.oneof(
          fc
            .tuple(fc.oneof(value, fc.string()), fc.oneof(value, fc.string()))
            .map(([u, p]) => basicAuth(u ?? "", p ?? "")),
          fc.string().map((raw) => `Basic ${raw}`),
        ),
        { nil: undefined },
      ),
    });
    await fc.assert(
      fc.asyncProperty(credentials, async ({ clientId, secret, basic }) => {
        const request = () =>
          formRequest(
            "/oauth/token",
            { client_id: clientId, client_secret: secret },
            basic === undefined ? {} : { authorization: basic },
          );
        // A form the endpoint refuses before any client authentication (a NUL) is not a case here.
        const form = await readForm(request()).catch(() => undefined);
        if (!form) return;
        const atOnce = await valueOrRefusal(() => authenticateCachedClient(request(), form));
        const awaited = await valueOrRefusal(() => authenticateClient(request(), form, { cached: true }));
        if ("value" in atOnce && atOnce.value === undefined) return;
        expect(atOnce).toEqual(awaited);
      }),
      { numRuns: 300 },
    );
    // The right secret, in the form and as HTTP Basic, is answered from the cache. Other files'
    // tests change apps on the same database meanwhile, and every change empties the cache: warm it
    // again, and look at once, until a look finds it warm.
    const right = { client_id: id, client_secret: app.clientSecret };
    const basic = () => formRequest("/oauth/token", {}, { authorization: basicAuth(id, app.clientSecret) });
    await waitFor(async () => {
      await authenticateClient(formRequest("/oauth/token", right), right, { cached: true });
      const fromForm = authenticateCachedClient(formRequest("/oauth/token", right), right);
      const fromBasic = authenticateCachedClient(basic(), {});
      if (!fromForm || !fromBasic) return false;
      expect(fromForm.app.clientId).toBe(id);
      expect(fromBasic).toMatchObject({ method: "client_secret_basic", app: { clientId: id } });
      return true;
    });
    expect(
      authenticateCachedClient(formRequest("/oauth/token", { ...right, client_secret: "wrong" }), {
        ...right,
        client_secret: "wrong",
      }),
    ).toBeUndefined();
  });
});
