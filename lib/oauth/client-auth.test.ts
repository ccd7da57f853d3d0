import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { HttpError } from "@/lib/api/http-error";
import { readForm } from "@/lib/api/parse";
import { regenerateClientSecret } from "@/lib/apps/secrets";
import { readCacheStats } from "@/lib/db/read-cache";
import { basicAuth } from "@/lib/testing/api-client";
import { waitFor } from "@/lib/testing/elsewhere";
import { makeAgency } from "@/lib/testing/fixtures";
import { formRequest, install, installAndExchange, makeApp } from "@/lib/testing/oauth";
import { authenticateCachedClient, authenticateClient } from "./client-auth";
import { findAppByClientId } from "./client-lookup";
import { tokenEndpoint } from "./token-endpoint";

// The real lookup, counted: a refusal must cost the same database reads whether the id exists.
vi.mock("./client-lookup", async (importOriginal) => {
  const original = await importOriginal<typeof import("./client-lookup")>();
  return { findAppByClientId: vi.fn(original.findAppByClientId) };
});

/**
 * The token endpoint may read the app from the read cache, which another instance's change
 * empties only when its NOTIFY arrives. Each grant's statement checks that the hash the client was
 * authenticated against is still the app's, so a regenerated secret stops at once all the same,
 * and a refused request consumes nothing.
 */
describe("the token endpoint with a client secret regenerated a moment ago", () => {
  it("refuses the old secret (invalid_client) without consuming the refresh token or the code", async () => {
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
    const { clientSecret } = await regenerateClientSecret(app.app.id, agency.owner);

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

    expect((await refresh(clientSecret, second.refresh_token as string)).refresh_token).toEqual(expect.any(String));
    expect((await exchange(clientSecret)).refresh_token).toEqual(expect.any(String));
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
async function outcome<T>(call: () => T | Promise<T>): Promise<{ value: T } | { refused: unknown }> {
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
        const atOnce = await outcome(() => authenticateCachedClient(request(), form));
        const awaited = await outcome(() => authenticateClient(request(), form, { cached: true }));
        if ("value" in atOnce && atOnce.value === undefined) return;
        expect(atOnce).toEqual(awaited);
      }),
      { numRuns: 300 },
    );
    // The right secret, in the form and as HTTP Basic, is answered from the cache.
    const right = { client_id: id, client_secret: app.clientSecret };
    expect(authenticateCachedClient(formRequest("/oauth/token", right), right)?.app.clientId).toBe(id);
    const basic = formRequest("/oauth/token", {}, { authorization: basicAuth(id, app.clientSecret) });
    expect(authenticateCachedClient(basic, {})).toMatchObject({ method: "client_secret_basic", app: { clientId: id } });
    expect(
      authenticateCachedClient(formRequest("/oauth/token", { ...right, client_secret: "wrong" }), {
        ...right,
        client_secret: "wrong",
      }),
    ).toBeUndefined();
  });
});
