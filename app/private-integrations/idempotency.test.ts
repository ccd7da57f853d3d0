import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { db } from "@/lib/db/client";
import { verifyPrivateIntegrationToken } from "@/lib/integrations/verify";
import { apiClient, expectError } from "@/lib/testing/api-client";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";

/**
 * The management API's `Idempotency-Key` on POST create and rotate, through the route table as the
 * server's router calls it: the same key and body answer the first answer (the same token) and
 * change nothing; another body is 409 conflict; a malformed key 400. Keys are per calling integration.
 */

const api = apiClient(apiRoutes);

let A: TestAgency;
let writer: string;
let otherWriter: string;

const count = () => db().privateIntegration.count({ where: { companyId: A.company.id } });

beforeAll(async () => {
  A = await makeAgency({ locations: 1, privateIntegrationsLab: true });
  writer = (await makeIntegration(A, { name: "Writer", scopes: ["private-integrations.write", "locations.readonly"] }))
    .token;
  otherWriter = (
    await makeIntegration(A, { name: "Other writer", scopes: ["private-integrations.write", "locations.readonly"] })
  ).token;
});

describe("POST /private-integrations with Idempotency-Key", () => {
  it("201, then the same 201 with the same token and no second integration; 409 with another body", async () => {
    const before = await count();
    const body = { name: "Created once", scopes: ["locations.readonly"] };
    const headers = { "Idempotency-Key": "create-1" };
    const first = await api.post("/private-integrations", { token: writer, json: body, headers });
    expect(first.status).toBe(201);
    const again = await api.post("/private-integrations", { token: writer, json: body, headers });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await count()).toBe(before + 1);
    expect((await verifyPrivateIntegrationToken(first.body.token)).ok).toBe(true);

    const other = await api.post("/private-integrations", {
      token: writer,
      json: { ...body, name: "Another body" },
      headers,
    });
    expectError(other, 409, "conflict", /Idempotency-Key|idempotency key was already used/);
    expect(await count()).toBe(before + 1);

    // Another integration's key of the same name is its own.
    const theirs = await api.post("/private-integrations", { token: otherWriter, json: body, headers });
    expect(theirs.status).toBe(201);
    expect(theirs.body.token).not.toBe(first.body.token);
    expect(await count()).toBe(before + 2);
  });

  it("without the header, every POST creates; a malformed key is 400 before anything is done", async () => {
    const before = await count();
    const body = { name: "No key", scopes: ["locations.readonly"] };
    expect((await api.post("/private-integrations", { token: writer, json: body })).status).toBe(201);
    expect((await api.post("/private-integrations", { token: writer, json: body })).status).toBe(201);
    for (const key of ["has space", "x".repeat(201)]) {
      const bad = await api.post("/private-integrations", {
        token: writer,
        json: body,
        headers: { "Idempotency-Key": key },
      });
      expectError(bad, 400, "invalid_request", /^Idempotency-Key: /);
    }
    expect(await count()).toBe(before + 2);
  });
});

describe("POST /private-integrations/{id}/rotate with Idempotency-Key", () => {
  it("200, then the same token again and one rotation; 409 with another mode", async () => {
    const target = await makeIntegration(A, { name: "Rotated once" });
    const headers = { "Idempotency-Key": "rotate-1" };
    const path = `/private-integrations/${target.id}/rotate`;
    const first = await api.post(path, { token: writer, json: { mode: "now" }, headers });
    expect(first.status).toBe(200);
    const again = await api.post(path, { token: writer, json: { mode: "now" }, headers });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await db().privateIntegrationToken.count({ where: { integrationId: target.id } })).toBe(2);

    const later = await api.post(path, { token: writer, json: { mode: "later" }, headers });
    expectError(later, 409, "conflict");
    // Rotate later with a key: its replay is not "a rotation is already in progress".
    const laterHeaders = { "Idempotency-Key": "rotate-later-1" };
    const rotating = await api.post(path, { token: writer, json: { mode: "later" }, headers: laterHeaders });
    expect(rotating.status).toBe(200);
    const replay = await api.post(path, {
      token: writer,
      json: { mode: "later", overlapDays: 7 },
      headers: laterHeaders,
    });
    expect(replay.status).toBe(200);
    expect(replay.body.token).toBe(rotating.body.token);
  });
});

describe("the OpenAPI document", () => {
  it("names Idempotency-Key on both POSTs", async () => {
    const doc = (await api.get("/openapi.json")).body;
    for (const path of ["/private-integrations", "/private-integrations/{id}/rotate"]) {
      const names = doc.paths[path].post.parameters.map((p: { name: string }) => p.name);
      expect(names, path).toContain("Idempotency-Key");
    }
  });
});
