import { resolve } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { createContact } from "@/lib/contacts/contacts";
import { apiClient, readAnswer } from "@/lib/testing/api-client";
import { makeAgency, makeUser } from "@/lib/testing/fixtures";
import {
  checkAnswer,
  describeRequest,
  discoverRoutes,
  type FuzzRequest,
  type FuzzSecrets,
  type RouteFile,
  requestArbitrary,
  requestPath,
} from "@/lib/testing/fuzz";
import { makeIntegration } from "@/lib/testing/integrations";
import { install, installAndExchange, makeApp } from "@/lib/testing/oauth";

/**
 * SPEC.md: "Malformed input of any kind … gets a 4xx with the body above. A 5xx is a defect."
 * Every route handler under app/ (found by walking the folder) gets fast-check-generated requests.
 * FUZZ_RUNS scales the runs per route (npm run test:stress sets it high); FUZZ_SEED replays a failure.
 */

const runs = Number(process.env.FUZZ_RUNS ?? 60);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
/** The methods that Next.js answers on its own (an empty 405, or a 204 without x-trace-id) when a route does not export them. */
const mustExport = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** next-auth's own endpoints need Next's request scope (cookies()) and answer in next-auth's format. */
const notOurs = (route: RouteFile) => route.segments[0] === "api" && route.segments[1] === "auth";
const routes = discoverRoutes().filter((r) => !notOurs(r));

type Handler = (request: Request, context: { params: Promise<unknown> }) => Promise<Response>;

/**
 * Real tokens, codes and ids, so the fuzzer reaches past authentication. Made afresh for each
 * route: fuzzing /oauth/revoke or a replayed code revokes them, which must not starve the next route.
 */
async function makeSecrets(): Promise<{ secrets: FuzzSecrets; all: string[] }> {
  const A = await makeAgency({ locations: 2, privateIntegrationsLab: true });
  const [l0, l1] = [A.locations[0]!.id, A.locations[1]!.id];
  const subPi = await makeIntegration(A, {
    locationId: l0,
    name: "Fuzz",
    scopes: ["locations.readonly", "contacts.write", "contacts.readonly"],
  });
  const agencyPi = await makeIntegration(A, { name: "Fuzz agency" });
  const app = await makeApp(A.company.id);
  const subUser = await makeUser(A.company.id, "account_admin", { locationIds: [l0, l1] });
  const company = await installAndExchange(A.owner, app, { level: "agency", locationIds: [l0, l1] });
  const location = await installAndExchange(subUser, app, { level: "location", locationId: l1 });
  const codes = [
    (await install(subUser, app.app.clientId, { level: "location", locationId: l0 })).code,
    (await install(A.owner, app.app.clientId, { level: "agency", locationIds: [l1] })).code,
  ];
  const contact = await createContact(await principalOf(subPi.token), {
    firstName: "Ada",
    lastName: "Lovelace",
    email: "ada@example.com",
    phone: "+14155550123",
    locationId: l0,
  });
  const secrets: FuzzSecrets = {
    bearer: [subPi.token, agencyPi.token, company.access_token, location.access_token],
    clientIds: [app.app.clientId],
    clientSecrets: [app.clientSecret],
    codes,
    refreshTokens: [company.refresh_token, location.refresh_token],
    ids: [A.company.id, l0, l1, app.app.id, contact.id],
  };
  return { secrets, all: [...secrets.bearer, ...secrets.clientSecrets, ...secrets.codes, ...secrets.refreshTokens] };
}

async function principalOf(token: string) {
  const { authenticateBearer } = await import("@/lib/api/bearer");
  return authenticateBearer(new Request("http://localhost/", { headers: { authorization: `Bearer ${token}` } }));
}

function emptyRequest(method: string): FuzzRequest {
  return { method, params: {}, trailingSlash: false, query: "", headers: [], bodyKind: "none" };
}

function fuzzedRequest(route: RouteFile, r: FuzzRequest): Request | null {
  const headers = new Headers();
  try {
    for (const [name, value] of r.headers) headers.append(name, value);
    return new Request(`http://localhost${requestPath(route, r)}`, {
      method: r.method,
      headers,
      body: r.body as BodyInit | undefined,
    });
  } catch {
    return null; // not a request any HTTP client could send (e.g. a header fetch refuses)
  }
}

/** Requests the fuzzer once answered with a 500 (NUL characters reached PostgreSQL, which refuses them). */
describe("regressions found by fuzzing: a NUL character anywhere is a 400", () => {
  let s: FuzzSecrets;
  beforeAll(async () => {
    s = (await makeSecrets()).secrets;
  });
  const form = { "content-type": "application/x-www-form-urlencoded" };
  const json = { "content-type": "application/json" };
  // The path's `%00` reaches the handler decoded, as Next.js hands it over: locationId "\u0000".
  interface Case {
    method: "GET" | "POST";
    path: string;
    token?: number;
    headers?: Record<string, string>;
    body?: string;
    basicNul?: boolean;
    status?: number;
  }
  const cases: Case[] = [
    { method: "GET", path: "/locations/%00", token: 0 },
    { method: "GET", path: "/oauth/installedLocations?companyId=%00", token: 2 },
    { method: "POST", path: "/contacts/", token: 0, headers: json, body: "contact" },
    { method: "POST", path: "/oauth/introspect", headers: form, body: "token=x&client_id=%00&client_secret=y" },
    {
      method: "POST",
      path: "/oauth/token",
      headers: form,
      body: "grant_type=refresh_token&refresh_token=x",
      basicNul: true,
      status: 401, // RFC 6749 §5.2: malformed Basic credentials are invalid_client
    },
  ];
  const api = apiClient(apiRoutes);
  it.each(cases.map((c) => [c.method, c.path, c] as const))("%s %s", async (method, path, c) => {
    const body =
      c.body === "contact"
        ? JSON.stringify({
            firstName: "A\u0000",
            lastName: "B",
            email: "nul@example.com",
            phone: "+14155550123",
            locationId: s.ids[1],
          })
        : c.body;
    const response = await readAnswer(
      await api.send(method, path, {
        token: c.token === undefined ? undefined : s.bearer[c.token],
        authorization: c.basicNul ? `Basic ${Buffer.from("\u0000:x").toString("base64")}` : undefined,
        headers: c.headers,
        body,
      }),
    );
    expect(checkAnswer(response.status, response.headers, response.text, method)).toBeNull();
    expect(response.status).toBe(c.status ?? 400);
  });
});

describe("every route answers every method Next.js would otherwise answer itself", () => {
  it.each(routes.map((r) => [r.file, r] as const))("%s", async (_file, route) => {
    const module = (await import(resolve(route.file))) as Record<string, unknown>;
    const missing = mustExport.filter((m) => typeof module[m] !== "function");
    expect(missing, `${route.file} must answer ${missing.join(", ")} with SPEC.md's error body`).toEqual([]);
  });
});

describe("fuzzing every route: never a 5xx, always SPEC.md's error body", () => {
  it("found the routes", () => {
    expect(routes.length).toBeGreaterThanOrEqual(10);
  });

  it.each(routes.map((r) => [r.file, r] as const))(
    "%s",
    async (_file, route) => {
      const module = (await import(resolve(route.file))) as Record<string, Handler | undefined>;
      const exported = methods.filter((m) => typeof module[m] === "function");
      expect(exported.length).toBeGreaterThan(0);
      // The methods really served (a bare request is not refused with Allow, nor an OPTIONS) get most of the runs.
      const served: string[] = [];
      for (const m of exported) {
        const probe = await module[m]!(
          new Request(`http://localhost${requestPath(route, emptyRequest(m))}`, { method: m }),
          {
            params: Promise.resolve({}),
          },
        );
        if (m !== "OPTIONS" && !probe.headers.has("allow")) served.push(m);
      }
      const { secrets, all: allSecrets } = await makeSecrets();
      let sent = 0;
      const outcomes = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(requestArbitrary(route, exported, secrets, { served }), async (r) => {
          const request = fuzzedRequest(route, r);
          if (!request) return true;
          const handler = module[r.method] as Handler;
          const response = await handler(request, { params: Promise.resolve(r.params) });
          const text = await response.text();
          sent++;
          const key = `${response.status} ${/"error":"([a-z_]+)"/.exec(text)?.[1] ?? ""}`.trim();
          outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
          // A secret the request did not carry must never come back in an error.
          const carried = `${requestPath(route, r)} ${r.headers.map(([, v]) => v).join(" ")} ${
            r.body ? Buffer.from(r.body).toString("latin1") : ""
          }`;
          const foreign = allSecrets.filter((s) => !carried.includes(s));
          const problem = checkAnswer(response.status, response.headers, text, r.method, foreign);
          if (problem) throw new Error(`${problem}\n  request: ${describeRequest(route, r)}`);
          return true;
        }),
        { numRuns: runs, seed, endOnFailure: true },
      );
      expect(sent).toBeGreaterThan(0);
      if (process.env.FUZZ_REPORT) console.log(route.file, Object.fromEntries(outcomes));
    },
    120_000 + runs * 500,
  );
});
