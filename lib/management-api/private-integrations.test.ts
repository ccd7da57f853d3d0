import { beforeAll, describe, expect, it } from "vitest";
import { HttpError } from "@/lib/api/http-error";
import { hashSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { listAuditLog } from "@/lib/integrations/audit-log";
import { rotateLater } from "@/lib/integrations/lifecycle";
import { setMaximumTokenLifetime } from "@/lib/integrations/maximum-lifetime";
import { getPrivateIntegration } from "@/lib/integrations/read";
import { revokeLeakedIntegrationTokens } from "@/lib/integrations/revoke-leaked";
import { agencyOwner, makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { integrationPrincipal } from "@/lib/testing/integration-principal";
import { makeIntegration } from "@/lib/testing/integrations";
import type { Principal } from "@/lib/tokens/principal";
import {
  createIntegration,
  integrationActorOf,
  integrationUsage,
  listIntegrations,
  updateIntegration,
} from "./private-integrations";
import { toApiIntegration } from "./shape";

/** The management API's lib layer, below HTTP (app/private-integrations/*.test.ts go through it). */
let A: TestAgency;
let B: TestAgency;

beforeAll(async () => {
  A = await makeAgency({ locations: 2, privateIntegrationsLab: true });
  B = await makeAgency({ locations: 1, privateIntegrationsLab: true });
});

describe("the API's shape of an integration", () => {
  it("names every field of SPEC.md, dates as the Expires field shows them, never a token", async () => {
    const now = new Date("2031-03-01T10:00:00Z");
    const { integration, token } = await makeIntegration(A, {
      name: "Shape",
      description: "All fields",
      scopes: ["locations.readonly"],
      expires: "2031-05-31",
      subAccounts: "chosen",
      subAccountIds: [A.locations[0]!.id],
      allowedIpAddresses: "203.0.113.0/24\n2001:db8::1",
      now,
    });
    const shaped = toApiIntegration(integration);
    expect(shaped).toEqual({
      id: integration.id,
      name: "Shape",
      description: "All fields",
      scopes: ["locations.readonly"],
      locationId: null,
      status: "active",
      tokenHint: token.slice(-4),
      createdAt: now.toISOString(),
      lastUsedAt: null,
      expiresAt: "2031-05-31",
      allowedIps: ["203.0.113.0/24", "2001:db8::1"],
      subAccounts: [A.locations[0]!.id],
    });
    expect(JSON.stringify(shaped)).not.toContain(token);
  });

  it("reads rotating, expired and revoked (a revoked one has no token hint)", async () => {
    const now = new Date();
    const { integration } = await makeIntegration(A, {
      name: "States",
      expires: new Date(now.getTime() + 3 * 86_400_000),
    });
    const rotated = await rotateLater(A.owner, agencyOwner(A), integration.id, now);
    expect(toApiIntegration(rotated.integration).status).toBe("rotating");
    const later = await db().privateIntegration.findUniqueOrThrow({ where: { id: integration.id } });
    expect(later.expiresAt).not.toBeNull();
    const afterExpiry = new Date(later.expiresAt!.getTime() + 1000);
    expect(
      toApiIntegration(await getPrivateIntegration(A.owner, agencyOwner(A), integration.id, afterExpiry)).status,
    ).toBe("expired");
    await revokeLeakedIntegrationTokens([hashSecret(rotated.token)], "Reported as leaked.", now);
    const revoked = toApiIntegration(await getPrivateIntegration(A.owner, agencyOwner(A), integration.id, now));
    expect(revoked).toMatchObject({ status: "revoked", tokenHint: null });
  });
});

describe("who may call it", () => {
  it("refuses an app's access token and a sub-account integration with 403 forbidden, before the scope", async () => {
    const app: Principal = {
      kind: "access_token",
      authClass: "Company",
      companyId: A.company.id,
      scopes: ["private-integrations.write"],
      appId: "app",
      tokenId: "jti",
    };
    expect(() => integrationActorOf(app, "read")).toThrow(
      expect.objectContaining({ status: 403, code: "forbidden", description: expect.stringMatching(/access token/) }),
    );
    const sub = await integrationPrincipal(A, ["locations.readonly"], { locationId: A.locations[0]!.id });
    expect(() => integrationActorOf(sub, "read")).toThrow(
      expect.objectContaining({ status: 403, code: "forbidden", description: expect.stringMatching(/agency/) }),
    );
  });

  it(".write includes .readonly; .readonly does not write (403 insufficient_scope naming the scope)", async () => {
    const writer = await integrationPrincipal(A, ["private-integrations.write"]);
    const reader = await integrationPrincipal(A, ["private-integrations.readonly"]);
    expect(integrationActorOf(writer, "read").integrationId).toBe(writer.integrationId);
    expect(integrationActorOf(reader, "read").integrationId).toBe(reader.integrationId);
    let thrown: unknown;
    try {
      integrationActorOf(reader, "write");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HttpError);
    expect(thrown).toMatchObject({ code: "insufficient_scope", status: 403 });
    expect((thrown as HttpError).headers["www-authenticate"]).toContain('scope="private-integrations.write"');
  });
});

describe("the operations", () => {
  it("create under an agency maximum: without expiresAt, 400 naming the maximum under the API's field name", async () => {
    const C = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    const caller = await integrationPrincipal(C, ["private-integrations.write", "locations.readonly"]);
    const now = new Date();
    await setMaximumTokenLifetime(C.owner, "30", now);
    const refused = createIntegration(caller, { name: "Forever", scopes: ["locations.readonly"] }, now);
    await expect(refused).rejects.toMatchObject({
      kind: "invalid",
      field: "expiresAt",
      message: expect.stringContaining("Maximum token lifetime is 30 days"),
      data: { fieldErrors: { expiresAt: expect.stringContaining("30 days") } },
    });
  });

  it("the audit log names the acting integration (its name now; null once it is deleted)", async () => {
    const caller = await integrationPrincipal(A, ["private-integrations.write", "locations.readonly"]);
    const { privateIntegration } = await createIntegration(caller, { name: "Audited", scopes: ["locations.readonly"] });
    const [entry] = await listAuditLog(A.owner, agencyOwner(A), { integrationId: privateIntegration.id });
    expect(entry).toMatchObject({
      label: "Created",
      actor: null,
      actorIntegration: { id: caller.integrationId, name: "Caller private-integrations.write" },
    });
    const view = await getPrivateIntegration(A.owner, agencyOwner(A), privateIntegration.id);
    expect(view.createdBy).toEqual({
      id: caller.integrationId,
      name: "Caller private-integrations.write",
      removed: false,
      integration: true,
    });
    await db().privateIntegration.delete({ where: { id: caller.integrationId! } });
    const orphan = await getPrivateIntegration(A.owner, agencyOwner(A), privateIntegration.id);
    expect(orphan.createdBy).toMatchObject({ id: caller.integrationId, removed: true, integration: true });
    const [after] = await listAuditLog(A.owner, agencyOwner(A), { integrationId: privateIntegration.id });
    expect(after?.actorIntegration).toEqual({ id: caller.integrationId, name: null });
  });

  it("an unknown scope is 400 invalid_scope", async () => {
    const caller = await integrationPrincipal(A, ["private-integrations.write"]);
    await expect(createIntegration(caller, { name: "X", scopes: ["nope.read"] })).rejects.toMatchObject({
      code: "invalid_scope",
    });
  });

  it("edit changes only the fields sent: scopes and guard rails left out stay", async () => {
    const caller = await integrationPrincipal(A, [
      "private-integrations.write",
      "locations.readonly",
      "users.readonly",
    ]);
    const created = await createIntegration(caller, {
      name: "Patch me",
      description: "kept",
      scopes: ["locations.readonly", "users.readonly"],
      allowedIps: ["198.51.100.7"],
    });
    const { privateIntegration } = await updateIntegration(caller, created.privateIntegration.id, {
      name: "Patched",
    });
    expect(privateIntegration).toMatchObject({
      name: "Patched",
      description: "kept",
      scopes: ["locations.readonly", "users.readonly"],
      allowedIps: ["198.51.100.7"],
      tokenHint: created.privateIntegration.tokenHint,
    });
    const cleared = await updateIntegration(caller, created.privateIntegration.id, { allowedIps: [] });
    expect(cleared.privateIntegration.allowedIps).toEqual([]);
  });

  it("another agency's integration and sub-account answer exactly as unknown ones", async () => {
    const caller = await integrationPrincipal(A, ["private-integrations.write"]);
    const { integration } = await makeIntegration(B, { name: "B's" });
    const theirs = await updateIntegration(caller, integration.id, { name: "Mine now" }).catch((e: unknown) => e);
    const unknown = await updateIntegration(caller, "no-such-id", { name: "Mine now" }).catch((e: unknown) => e);
    expect(theirs).toMatchObject({ kind: "not_found" });
    expect(theirs).toEqual(unknown);
    const theirLocation = await listIntegrations(caller, { locationId: B.locations[0]!.id }).catch((e: unknown) => e);
    const noLocation = await listIntegrations(caller, { locationId: "no-such-location" }).catch((e: unknown) => e);
    expect(theirLocation).toMatchObject({ kind: "not_found" });
    expect(theirLocation).toEqual(noLocation);
  });

  it("usage answers the last N UTC days, today last, zeros included", async () => {
    const caller = await integrationPrincipal(A, ["private-integrations.readonly"]);
    const { integration } = await makeIntegration(A, { name: "Used" });
    const now = new Date("2031-06-10T15:20:00Z");
    await db().apiUsageHour.createMany({
      data: [
        { subjectType: "integration", subjectId: integration.id, hour: new Date("2031-06-10T14:00:00Z"), ok: 5 },
        { subjectType: "integration", subjectId: integration.id, hour: new Date("2031-06-08T01:00:00Z"), refused: 2 },
        { subjectType: "integration", subjectId: integration.id, hour: new Date("2031-06-01T01:00:00Z"), ok: 9 },
      ],
    });
    expect(await integrationUsage(caller, integration.id, 3, now)).toEqual({
      days: [
        { date: "2031-06-08", ok: 0, refused: 2, limited: 0 },
        { date: "2031-06-09", ok: 0, refused: 0, limited: 0 },
        { date: "2031-06-10", ok: 5, refused: 0, limited: 0 },
      ],
    });
    expect((await integrationUsage(caller, integration.id, undefined, now)).days).toHaveLength(30);
  });
});
