import { beforeAll, describe, expect, it } from "vitest";
import { secretMatchesHash } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { authenticateClient } from "@/lib/oauth/client-auth";
import { makeAgency, makeUser, type TestAgency } from "@/lib/testing/fixtures";
import { formRequest, makeApp } from "@/lib/testing/oauth";
import { refusal } from "@/lib/testing/refusal";
import { createApp, listDeveloperApps, updateApp } from "./registry";
import { revokePreviousClientSecret, rotateClientSecret } from "./secrets";

let agency: TestAgency;

beforeAll(async () => {
  agency = await makeAgency({ locations: 1 });
});

const base = () => ({
  companyId: agency.company.id,
  name: "Reporting",
  redirectUris: ["https://reports.example.com/cb"],
  scopes: ["contacts.readonly"],
  installSetting: "everyone" as const,
});

describe("createApp", () => {
  it("returns the client secret once and keeps only its keyed hash, with a first version", async () => {
    const { app, clientSecret } = await createApp({ ...base(), webhookUrl: "https://reports.example.com/hooks" });
    // `<appId>-<suffix>`: the platform's SDK reads the app id as clientId.split('-')[0].
    expect(app.clientId).toMatch(/^c[0-9a-z]{24}-[0-9a-f]{8}$/);
    expect(app.clientId.split("-")[0]).toBe(app.id);
    expect(clientSecret.length).toBeGreaterThanOrEqual(40);
    expect(app).not.toHaveProperty("clientSecretHash");
    expect(app.clientSecretHint).toBe(clientSecret.slice(-4));
    const row = await db().app.findUniqueOrThrow({ where: { id: app.id }, include: { versions: true } });
    expect(row.clientSecretHash).not.toContain(clientSecret);
    expect(secretMatchesHash(clientSecret, row.clientSecretHash)).toBe(true);
    expect(row.versions.map((v) => v.id)).toEqual([app.versionId]);
    expect(row.webhookUrl).toBe("https://reports.example.com/hooks");
    expect(await db().auditLog.count({ where: { targetId: app.id, action: "app_created" } })).toBe(1);
  });

  it.each([
    ["no redirect URI", { redirectUris: [] }, "redirectUris", /at least one redirect URI/],
    ["plain http off loopback", { redirectUris: ["http://example.com/cb"] }, "redirectUris", /https/],
    ["a relative URI", { redirectUris: ["/cb"] }, "redirectUris", /absolute URL/],
    ["a fragment", { redirectUris: ["https://a.example/cb#x"] }, "redirectUris", /fragment/],
    ["a custom scheme", { redirectUris: ["myapp://cb"] }, "redirectUris", /https/],
    ["credentials", { redirectUris: ["https://u:p@a.example/cb"] }, "redirectUris", /user name/],
    ["an unknown scope", { scopes: ["contacts.everything"] }, "scopes", /not a known scope/],
    ["no scope", { scopes: [] }, "scopes", /at least one scope/],
    ["a bad install setting", { installSetting: "anyone" }, "installSetting", /agency_only/],
    ["an empty name", { name: " " }, "name", /name/],
    ["a bad webhook URL", { webhookUrl: "ftp://x.example" }, "webhookUrl", /https/],
  ])("refuses %s, naming the field", async (_case, override, field, message) => {
    const error = await refusal(createApp({ ...base(), ...(override as object) }));
    expect(error.kind).toBe("invalid");
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it("accepts http on loopback hosts", async () => {
    const { app } = await createApp({
      ...base(),
      redirectUris: ["http://localhost:3000/cb", "http://127.0.0.1:8080/cb", "http://[::1]/cb"],
    });
    expect(app.redirectUris).toHaveLength(3);
  });

  it("only agency owners and admins of that agency create apps", async () => {
    const admin = await makeUser(agency.company.id, "agency_admin");
    expect((await createApp(base(), admin)).app.companyId).toBe(agency.company.id);
    const user = await makeUser(agency.company.id, "agency_user");
    expect((await refusal(createApp(base(), user))).kind).toBe("forbidden");
    const other = await makeAgency({ locations: 0 });
    expect((await refusal(createApp(base(), other.owner))).kind).toBe("forbidden");
  });
});

describe("updateApp and rotateClientSecret", () => {
  it("changed scopes make a new version; other changes do not", async () => {
    const { app } = await makeApp(agency.company.id);
    const renamed = await updateApp(app.id, { name: "Renamed" }, agency.owner);
    expect(renamed.versionId).toBe(app.versionId);
    const rescoped = await updateApp(app.id, { scopes: ["contacts.write"] }, agency.owner);
    expect(rescoped.versionId).not.toBe(app.versionId);
    expect(rescoped.scopes).toEqual(["contacts.write"]);
    expect(await db().appVersion.count({ where: { appId: app.id } })).toBe(2);
  });

  it("another agency's app is not found", async () => {
    const { app } = await makeApp(agency.company.id);
    const other = await makeAgency({ locations: 0 });
    expect((await refusal(updateApp(app.id, { name: "x" }, other.owner))).kind).toBe("not_found");
    expect((await refusal(rotateClientSecret(app.id, {}, other.owner))).kind).toBe("not_found");
    expect((await refusal(revokePreviousClientSecret(app.id, other.owner))).kind).toBe("not_found");
  });

  it("a rotated secret works at once; the old one until its overlap ends or it is revoked", async () => {
    const created = await makeApp(agency.company.id);
    const form = (secret: string) => ({ client_id: created.app.clientId, client_secret: secret });
    const request = () => formRequest("/oauth/token", {});
    expect((await authenticateClient(request(), form(created.clientSecret))).app.id).toBe(created.app.id);
    const { clientSecret } = await rotateClientSecret(created.app.id, { overlap: "1h" }, agency.owner);
    expect(clientSecret).not.toBe(created.clientSecret);
    expect((await authenticateClient(request(), form(clientSecret))).app.id).toBe(created.app.id);
    expect((await authenticateClient(request(), form(created.clientSecret))).app.id).toBe(created.app.id);
    await revokePreviousClientSecret(created.app.id, agency.owner);
    await expect(authenticateClient(request(), form(created.clientSecret))).rejects.toMatchObject({
      code: "invalid_client",
      status: 401,
    });
  });

  it("lists the agency's own apps to its developers only", async () => {
    const { app } = await makeApp(agency.company.id);
    expect((await listDeveloperApps(agency.owner)).map((a) => a.id)).toContain(app.id);
    const user = await makeUser(agency.company.id, "agency_user");
    expect((await refusal(listDeveloperApps(user))).kind).toBe("forbidden");
  });
});
