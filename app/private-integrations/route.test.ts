// Over 250 lines on purpose: one file per API, as its OpenAPI tag: every operation and refusal of the
// management API, which share one world (two agencies and their integrations).
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { setLabsFeature } from "@/lib/accounts/labs";
import { db } from "@/lib/db/client";
import { setMaximumTokenLifetime } from "@/lib/integrations/maximum-lifetime";
import { type ApiAnswer, apiClient, expectBearerError } from "@/lib/testing/api-client";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { installAndExchange, makeApp } from "@/lib/testing/oauth";

/**
 * The management API through HTTP (SPEC.md › Private integrations under automation): every
 * operation and every refusal, through the route table's handlers as the server's router calls
 * them. Runs on PGlite, and on PostgreSQL with TEST_DATABASE_URL.
 */

const api = apiClient(apiRoutes);

/** SPEC.md's error body, and on a 401 or 403 the RFC 6750 challenge naming the same code. */

let A: TestAgency;
let B: TestAgency;
/** A's integrations acting through the API. */
let writer: string;
let writerId: string;
let reader: string;
let unscoped: string;

/** GET /locations/{id} with a token: whether a token works. */
async function works(token: string, T: TestAgency = A): Promise<number> {
  return (await api.get(`/locations/${T.locations[0]!.id}`, { token })).status;
}

beforeAll(async () => {
  A = await makeAgency({ locations: 2, privateIntegrationsLab: true });
  B = await makeAgency({ locations: 1, privateIntegrationsLab: true });
  const w = await makeIntegration(A, {
    name: "Rotator",
    scopes: ["private-integrations.write", "locations.readonly", "users.readonly"],
  });
  writer = w.token;
  writerId = w.id;
  reader = (await makeIntegration(A, { name: "Auditor", scopes: ["private-integrations.readonly"] })).token;
  unscoped = (await makeIntegration(A, { name: "Plain" })).token;
});

describe("GET /private-integrations", () => {
  it("lists the agency's own (never a token), or one sub-account's with locationId; .write reads too", async () => {
    const sub = await makeIntegration(A, {
      locationId: A.locations[0]!.id,
      name: "Sub one",
      scopes: ["contacts.readonly"],
    });
    for (const token of [reader, writer]) {
      const agency = await api.get("/private-integrations", { token });
      expect(agency.status).toBe(200);
      expect(agency.headers.get("cache-control")).toContain("no-store");
      expect(agency.headers.get("x-ratelimit-remaining")).not.toBeNull();
      const rotator = agency.body.privateIntegrations.find((i: { id: string }) => i.id === writerId);
      expect(Object.keys(rotator).sort()).toEqual(
        [
          "id",
          "name",
          "description",
          "scopes",
          "locationId",
          "status",
          "tokenHint",
          "createdAt",
          "lastUsedAt",
          "expiresAt",
          "allowedIps",
          "subAccounts",
        ].sort(),
      );
      expect(rotator).toMatchObject({ locationId: null, status: "active", tokenHint: writer.slice(-4) });
      expect(agency.text).not.toMatch(/pit-[0-9a-f]{8}-/);
      expect(agency.body.privateIntegrations.map((i: { id: string }) => i.id)).not.toContain(sub.id);
      const one = await api.get("/private-integrations", { token, query: { locationId: A.locations[0]!.id } });
      expect(one.body.privateIntegrations).toEqual([
        expect.objectContaining({ id: sub.id, locationId: A.locations[0]!.id }),
      ]);
    }
  });

  it("another agency's sub-account answers exactly as an unknown one (404)", async () => {
    const theirs = await api.get("/private-integrations", { token: reader, query: { locationId: B.locations[0]!.id } });
    const none = await api.get("/private-integrations", { token: reader, query: { locationId: "no-such-location" } });
    expectBearerError(theirs, 404, "not_found");
    expect({ ...theirs.body, traceId: "" }).toEqual({ ...none.body, traceId: "" });
  });
});

describe("who may call", () => {
  it("a missing scope: 403 insufficient_scope naming it; a read-only integration cannot write", async () => {
    expectBearerError(
      await api.get("/private-integrations", { token: unscoped }),
      403,
      "insufficient_scope",
      /readonly/,
    );
    const write = await api.post("/private-integrations", {
      token: reader,
      json: { name: "No", scopes: ["locations.readonly"] },
    });
    expectBearerError(write, 403, "insufficient_scope", /private-integrations\.write/);
    expect(write.headers.get("www-authenticate")).toContain('scope="private-integrations.write"');
    expectBearerError(
      await api.delete(`/private-integrations/${writerId}`, { token: reader }),
      403,
      "insufficient_scope",
    );
  });

  it("an app's access token: 403 forbidden, even holding private-integrations.write", async () => {
    const app = await makeApp(A.company.id, { scopes: ["private-integrations.write", "locations.readonly"] });
    const tokens = await installAndExchange(A.owner, app, { level: "agency", locationIds: [A.locations[0]!.id] });
    expectBearerError(
      await api.get("/private-integrations", { token: tokens.access_token }),
      403,
      "forbidden",
      /access token/,
    );
    expectBearerError(
      await api.post("/private-integrations", { token: tokens.access_token, json: { name: "X", scopes: [] } }),
      403,
      "forbidden",
    );
  });

  it("a sub-account integration: 403 forbidden", async () => {
    const sub = await makeIntegration(A, { locationId: A.locations[1]!.id, name: "Sub caller" });
    expectBearerError(await api.get("/private-integrations", { token: sub.token }), 403, "forbidden", /agency private/);
  });

  it("no Version: 400 invalid_version; no token: 401", async () => {
    expectBearerError(await api.get("/private-integrations", { token: reader, version: null }), 400, "invalid_version");
    expectBearerError(await api.get("/private-integrations"), 401, "invalid_token");
  });

  it("Labs off: 403 naming Labs, for reads and writes", async () => {
    const C = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    const caller = await makeIntegration(C, {
      name: "Automation",
      scopes: ["private-integrations.write", "locations.readonly"],
    });
    await setLabsFeature({ companyId: C.company.id, feature: "private_integrations", enabled: false });
    expectBearerError(await api.get("/private-integrations", { token: caller.token }), 403, "forbidden", /Labs/);
    expectBearerError(
      await api.post("/private-integrations", {
        token: caller.token,
        json: { name: "X", scopes: ["locations.readonly"] },
      }),
      403,
      "forbidden",
      /Labs/,
    );
    expectBearerError(
      await api.post(`/private-integrations/${caller.id}/rotate`, { token: caller.token, json: { mode: "now" } }),
      403,
      "forbidden",
      /Labs/,
    );
  });
});

describe("POST /private-integrations", () => {
  it("201 with the token, shown once; it works; the audit log names the calling integration", async () => {
    const created = await api.post("/private-integrations", {
      token: writer,
      json: {
        name: "CRM sync",
        description: "Made by automation",
        scopes: ["locations.readonly"],
        allowedIps: [],
        subAccounts: [A.locations[0]!.id],
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.token).toMatch(/^pit-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(created.body.privateIntegration).toMatchObject({
      name: "CRM sync",
      description: "Made by automation",
      scopes: ["locations.readonly"],
      locationId: null,
      status: "active",
      tokenHint: created.body.token.slice(-4),
      expiresAt: null,
      allowedIps: [],
      subAccounts: [A.locations[0]!.id],
    });
    expect(await works(created.body.token)).toBe(200);
    const audit = await db().auditLog.findFirstOrThrow({
      where: { targetId: created.body.privateIntegration.id, action: "private_integration_created" },
    });
    expect(audit).toMatchObject({ actorUserId: null, actorIntegrationId: writerId });
  });

  it("a sub-account's, with locationId; another agency's sub-account is 404", async () => {
    const created = await api.post("/private-integrations", {
      token: writer,
      json: { name: "Sub", scopes: ["locations.readonly"], locationId: A.locations[1]!.id },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.privateIntegration.locationId).toBe(A.locations[1]!.id);
    const theirs = await api.post("/private-integrations", {
      token: writer,
      json: { name: "Sub", scopes: ["locations.readonly"], locationId: B.locations[0]!.id },
    });
    expectBearerError(theirs, 404, "not_found");
  });

  it.each([
    ["a scope it does not hold", ["users.write"], /does not hold users\.write/],
    ["private-integrations.write", ["private-integrations.write"], /cannot give private-integrations\.write/],
  ])("no escalation: %s is 403 forbidden", async (_name, scopes, description) => {
    const answer = await api.post("/private-integrations", { token: writer, json: { name: "Up", scopes } });
    expectBearerError(answer, 403, "forbidden", description);
  });

  it.each([
    ["not JSON", undefined, /JSON/],
    ["an unknown field", { name: "X", scopes: ["locations.readonly"], token: "mine" }, /token/],
    ["scopes of the wrong type", { name: "X", scopes: "locations.readonly" }, /scopes/],
    ["a bad expiresAt", { name: "X", scopes: ["locations.readonly"], expiresAt: "31/12/2031" }, /expiresAt/],
    ["a bad address", { name: "X", scopes: ["locations.readonly"], allowedIps: ["300.1.1.1"] }, /300\.1\.1\.1/],
    ["a scope of the other level", { name: "X", scopes: ["contacts.write"] }, /contacts\.write/],
  ])("bad input: %s is 400 invalid_request", async (_name, json, description) => {
    const answer = await api.post("/private-integrations", { token: writer, json });
    expectBearerError(answer, 400, "invalid_request", description);
  });

  it("an unknown scope is 400 invalid_scope", async () => {
    const answer = await api.post("/private-integrations", { token: writer, json: { name: "X", scopes: ["nope"] } });
    expectBearerError(answer, 400, "invalid_scope", /nope/);
  });

  it("under an agency maximum: no expiresAt, or one beyond it, is 400 naming the maximum; within it, 201", async () => {
    const C = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    const caller = await makeIntegration(C, {
      name: "Automation",
      scopes: ["private-integrations.write", "locations.readonly"],
    });
    await setMaximumTokenLifetime(C.owner, "30", new Date());
    const ymd = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
    for (const expiresAt of [undefined, null, ymd(60)]) {
      const answer = await api.post("/private-integrations", {
        token: caller.token,
        json: { name: "Long", scopes: ["locations.readonly"], expiresAt },
      });
      expectBearerError(answer, 400, "invalid_request", /Maximum token lifetime is 30 days/);
      expect(answer.body.fieldErrors.expiresAt).toMatch(/30 days/);
    }
    const within = await api.post("/private-integrations", {
      token: caller.token,
      json: { name: "Short", scopes: ["locations.readonly"], expiresAt: ymd(20) },
    });
    expect(within.status, within.text).toBe(201);
    expect(within.body.privateIntegration.expiresAt).toBe(ymd(20));
  });
});

describe("PATCH /private-integrations/{id}", () => {
  it("changes the fields sent; the token keeps working; adding a scope it lacks is 403", async () => {
    const target = await makeIntegration(A, { name: "Edit me" });
    const edited = await api.patch(`/private-integrations/${target.id}`, {
      token: writer,
      json: { name: "Edited", description: "by the API", scopes: ["locations.readonly", "users.readonly"] },
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.privateIntegration).toMatchObject({
      name: "Edited",
      description: "by the API",
      scopes: ["locations.readonly", "users.readonly"],
      tokenHint: target.token.slice(-4),
    });
    expect(await works(target.token)).toBe(200);
    const up = await api.patch(`/private-integrations/${target.id}`, {
      token: writer,
      json: { scopes: ["oauth.write"] },
    });
    expectBearerError(up, 403, "forbidden", /oauth\.write/);
    expectBearerError(
      await api.patch(`/private-integrations/${target.id}`, { token: writer, json: {} }),
      400,
      "invalid_request",
    );
    expectBearerError(
      await api.patch(`/private-integrations/${target.id}`, {
        token: writer,
        json: { locationId: A.locations[0]!.id },
      }),
      400,
      "invalid_request",
    );
  });

  it("another agency's id answers exactly as an unknown id (404), for every operation", async () => {
    const theirs = await makeIntegration(B, { name: "B's" });
    const calls: [string, (id: string) => Promise<ApiAnswer>][] = [
      ["PATCH", (id) => api.patch(`/private-integrations/${id}`, { token: writer, json: { name: "Mine" } })],
      ["DELETE", (id) => api.delete(`/private-integrations/${id}`, { token: writer })],
      ["rotate", (id) => api.post(`/private-integrations/${id}/rotate`, { token: writer, json: { mode: "now" } })],
      ["expire-now", (id) => api.post(`/private-integrations/${id}/expire-now`, { token: writer })],
      ["cancel-rotation", (id) => api.post(`/private-integrations/${id}/cancel-rotation`, { token: writer })],
      ["usage", (id) => api.get(`/private-integrations/${id}/usage`, { token: writer })],
    ];
    for (const [name, call] of calls) {
      const [their, unknown] = [await call(theirs.id), await call("cm0000000000000000000000")];
      expectBearerError(their, 404, "not_found");
      expect({ ...their.body, traceId: "" }, name).toEqual({ ...unknown.body, traceId: "" });
    }
    expect(await works(theirs.token, B)).toBe(200);
  });
});

describe("rotation", () => {
  it("later: rotating, both work; again: 409; expire-now: the old one stops", async () => {
    const target = await makeIntegration(A, { name: "Rotate later" });
    const rotated = await api.post(`/private-integrations/${target.id}/rotate`, {
      token: writer,
      json: { mode: "later", overlapDays: 1 },
    });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.privateIntegration).toMatchObject({
      status: "rotating",
      tokenHint: rotated.body.token.slice(-4),
    });
    expect([await works(target.token), await works(rotated.body.token)]).toEqual([200, 200]);
    const old = await db().privateIntegrationToken.findFirstOrThrow({
      where: { integrationId: target.id, slot: "previous" },
    });
    expect(old.expiresAt!.getTime() - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
    expect(old.expiresAt!.getTime() - Date.now()).toBeLessThanOrEqual(86_400_000);
    expectBearerError(
      await api.post(`/private-integrations/${target.id}/rotate`, { token: writer, json: { mode: "now" } }),
      409,
      "conflict",
      /already in progress/,
    );
    const expired = await api.post(`/private-integrations/${target.id}/expire-now`, { token: writer });
    expect(expired.status, expired.text).toBe(200);
    expect(expired.body.privateIntegration.status).toBe("active");
    expect([await works(target.token), await works(rotated.body.token)]).toEqual([401, 200]);
    expectBearerError(
      await api.post(`/private-integrations/${target.id}/expire-now`, { token: writer }),
      409,
      "conflict",
    );
  });

  it("later, then cancel-rotation: the new token stops, the old one stays", async () => {
    const target = await makeIntegration(A, { name: "Rotate and cancel" });
    const rotated = await api.post(`/private-integrations/${target.id}/rotate`, {
      token: writer,
      json: { mode: "later" },
    });
    expect(rotated.status).toBe(200);
    const cancelled = await api.post(`/private-integrations/${target.id}/cancel-rotation`, { token: writer });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.privateIntegration).toMatchObject({ status: "active", tokenHint: target.token.slice(-4) });
    expect([await works(target.token), await works(rotated.body.token)]).toEqual([200, 401]);
  });

  it("now: the old token stops at once; the audit log names the calling integration", async () => {
    const target = await makeIntegration(A, { name: "Rotate now" });
    const rotated = await api.post(`/private-integrations/${target.id}/rotate`, {
      token: writer,
      json: { mode: "now" },
    });
    expect(rotated.status, rotated.text).toBe(200);
    expect([await works(target.token), await works(rotated.body.token)]).toEqual([401, 200]);
    const audit = await db().auditLog.findFirstOrThrow({
      where: { targetId: target.id, action: "private_integration_rotated_now" },
    });
    expect(audit.actorIntegrationId).toBe(writerId);
  });

  it("an integration holding a scope the caller lacks is not rotated (403); bad modes are 400", async () => {
    const stronger = await makeIntegration(A, { name: "Stronger", scopes: ["oauth.write"] });
    expectBearerError(
      await api.post(`/private-integrations/${stronger.id}/rotate`, { token: writer, json: { mode: "now" } }),
      403,
      "forbidden",
      /oauth\.write/,
    );
    for (const json of [
      { mode: "soon" },
      { mode: "later", overlapDays: 2 },
      { mode: "now", overlapDays: 7 },
      undefined,
    ]) {
      expectBearerError(
        await api.post(`/private-integrations/${stronger.id}/rotate`, { token: writer, json }),
        400,
        "invalid_request",
      );
    }
  });
});

describe("DELETE and usage", () => {
  it("DELETE: 204, every token of it stops at once, then 404", async () => {
    const target = await makeIntegration(A, { name: "Delete me" });
    const deleted = await api.delete(`/private-integrations/${target.id}`, { token: writer });
    expect(deleted.status, deleted.text).toBe(204);
    expect(await works(target.token)).toBe(401);
    expectBearerError(await api.delete(`/private-integrations/${target.id}`, { token: writer }), 404, "not_found");
  });

  it("usage: the last N UTC days, today last; days outside 1..90 is 400", async () => {
    const target = await makeIntegration(A, { name: "Used" });
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    await db().apiUsageHour.create({
      data: { subjectType: "integration", subjectId: target.id, hour, ok: 4, refused: 1, limited: 2 },
    });
    const usage = await api.get(`/private-integrations/${target.id}/usage`, { token: reader, query: { days: "7" } });
    expect(usage.status, usage.text).toBe(200);
    expect(usage.body.days).toHaveLength(7);
    expect(usage.body.days.at(-1)).toEqual({ date: hour.toISOString().slice(0, 10), ok: 4, refused: 1, limited: 2 });
    expect((await api.get(`/private-integrations/${target.id}/usage`, { token: reader })).body.days).toHaveLength(30);
    for (const days of ["0", "91", "7.5", "x"]) {
      expectBearerError(
        await api.get(`/private-integrations/${target.id}/usage`, { token: reader, query: { days } }),
        400,
        "invalid_request",
        /days/,
      );
    }
  });
});

describe("no wider guard rails: an integration never gives, keeps or obtains more reach than it has", () => {
  const ymd = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  const office = "203.0.113.9";
  /** A caller limited to one sub-account, an office range and an Expires in 30 days; it calls from the office. */
  let limited: { id: string; token: string };
  const as = (json?: object) => ({ token: limited.token, peer: office, ...(json ? { json } : {}) });
  const within = () => ({ subAccounts: [A.locations[0]!.id], allowedIps: ["203.0.113.64/26"], expiresAt: ymd(20) });

  async function guarded(name: string, rails: { all?: boolean; ips?: string; expires?: string }) {
    return makeIntegration(A, {
      name,
      scopes: ["private-integrations.write", "locations.readonly"],
      ...(rails.all === false ? { subAccounts: "chosen" as const, subAccountIds: [A.locations[0]!.id] } : {}),
      allowedIpAddresses: rails.ips,
      expires: rails.expires,
    });
  }
  const railsOf = async (id: string) =>
    (await api.get("/private-integrations", { token: writer })).body.privateIntegrations
      .map(({ id: i, subAccounts, allowedIps, expiresAt }: Record<string, unknown>) => ({
        id: i,
        subAccounts,
        allowedIps,
        expiresAt,
      }))
      .find((i: { id: string }) => i.id === id);

  beforeAll(async () => {
    limited = await guarded("Limited", { all: false, ips: "203.0.113.0/24", expires: ymd(30) });
  });

  it("self-edit: removing its own guard rails is 403 and changes nothing; renaming itself is 200", async () => {
    const before = await railsOf(limited.id);
    expect(before).toEqual({
      id: limited.id,
      subAccounts: [A.locations[0]!.id],
      allowedIps: ["203.0.113.0/24"],
      expiresAt: ymd(30),
    });
    for (const json of [
      { subAccounts: "all", allowedIps: [], expiresAt: null },
      { allowedIps: ["203.0.113.0/25"] },
      { expiresAt: ymd(10) },
    ]) {
      const answer = await api.patch(`/private-integrations/${limited.id}`, as(json));
      expectBearerError(answer, 403, "forbidden", /cannot change its own guard rails .*Leave them out/);
    }
    expect(await railsOf(limited.id)).toEqual(before);
    const renamed = await api.patch(`/private-integrations/${limited.id}`, as({ name: "Limited (renamed)" }));
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.privateIntegration).toMatchObject({ name: "Limited (renamed)", ...before });
  });

  it.each([
    ["Sub-accounts all", { subAccounts: "all" }, /limited to chosen Sub-accounts/],
    [
      "another sub-account's integration",
      { subAccounts: undefined, locationId: "other" },
      /Sub-accounts do not include/,
    ],
    ["no Allowed IP addresses", { allowedIps: [] }, /Allowed IP addresses .*none are set/],
    ["a range wider than its own", { allowedIps: ["203.0.0.0/16"] }, /203\.0\.0\.0\/16 is not/],
    ["no Expires", { expiresAt: null }, /expires on .*not never/],
    ["a later Expires", { expiresAt: ymd(40) }, /that expire no later/],
  ])("create: %s is 403 forbidden naming the guard rail; nothing is created", async (_name, change, description) => {
    const { locationId, ...rest } = change as { locationId?: string };
    const json = {
      name: `Wider: ${_name}`,
      scopes: ["locations.readonly"],
      ...within(),
      ...rest,
      ...(locationId ? { locationId: A.locations[1]!.id, subAccounts: undefined } : {}),
    };
    expectBearerError(await api.post("/private-integrations", as(json)), 403, "forbidden", description);
    expect(await db().privateIntegration.count({ where: { name: json.name } })).toBe(0);
  });

  it("create within its own guard rails is 201: an agency integration, and one of its sub-account's", async () => {
    const agency = await api.post(
      "/private-integrations",
      as({ name: "Narrower", scopes: ["locations.readonly"], ...within() }),
    );
    expect(agency.status, agency.text).toBe(201);
    expect(agency.body.privateIntegration).toMatchObject(within());
    const { subAccounts: _, ...rails } = within();
    const sub = await api.post(
      "/private-integrations",
      as({ name: "Narrower sub", scopes: ["locations.readonly"], locationId: A.locations[0]!.id, ...rails }),
    );
    expect(sub.status, sub.text).toBe(201);
  });

  it("rotate: a looser sibling is 403 and keeps its token; a sibling within, and itself, rotate (200)", async () => {
    const looser = await makeIntegration(A, { name: "Looser sibling" });
    const refused = await api.post(`/private-integrations/${looser.id}/rotate`, as({ mode: "now" }));
    expectBearerError(
      refused,
      403,
      "forbidden",
      /covers.*rotate \(and so take the token of\).*Ask a person to rotate it/,
    );
    expect(await works(looser.token)).toBe(200);
    const edit = await api.patch(`/private-integrations/${looser.id}`, as({ name: "Still looser" }));
    expectBearerError(
      edit,
      403,
      "forbidden",
      /limited to chosen Sub-accounts, so it sees and acts on only integrations within them/,
    );
    const sibling = await guarded("Narrow sibling", { all: false, ips: "203.0.113.64/26", expires: ymd(20) });
    const rotated = await api.post(`/private-integrations/${sibling.id}/rotate`, as({ mode: "now" }));
    expect(rotated.status, rotated.text).toBe(200);
    const self = await api.post(`/private-integrations/${limited.id}/rotate`, as({ mode: "later", overlapDays: 1 }));
    expect(self.status, self.text).toBe(200);
    expect(self.body.privateIntegration).toMatchObject({ status: "rotating", allowedIps: ["203.0.113.0/24"] });
  });
});
