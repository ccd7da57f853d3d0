import { beforeAll, describe, expect, it } from "vitest";
import { hashSecret } from "@/lib/crypto/secrets";
import { agencyOwner, makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { listAuditLog } from "./audit-log";
import {
  cancelRotation,
  expireNow,
  remove,
  revokedRefusal,
  rotateLater,
  rotateNow,
  updatePrivateIntegration,
} from "./lifecycle";
import { getPrivateIntegration } from "./read";
import { revokeLeakedIntegrationTokens } from "./revoke-leaked";
import { verifyPrivateIntegrationToken } from "./verify";

let A: TestAgency;
const reason = "Reported as leaked through POST /credentials/revoke.";

beforeAll(async () => {
  A = await makeAgency({ locations: 1, privateIntegrationsLab: true });
});

async function leaked(name = "Leaky") {
  const created = await makeIntegration(A, { name });
  const now = new Date();
  const revoked = await revokeLeakedIntegrationTokens([hashSecret(created.token)], reason, now);
  return { ...created, revoked, now };
}

describe("a private integration reported as leaked", () => {
  it("reads Revoked with the reason and the time; every token of it is refused", async () => {
    const { integration, token, revoked, now } = await leaked();
    expect(revoked).toEqual([expect.objectContaining({ integrationId: integration.id, name: "Leaky" })]);
    // 401 invalid_token in words that say it was reported and what brings the integration back.
    expect(await verifyPrivateIntegrationToken(token)).toEqual({
      ok: false,
      reason: "refused",
      refusal: {
        code: "invalid_token",
        description: expect.stringMatching(/reported as leaked.*Rotate and expire this token now/),
      },
      integrationId: integration.id,
    });
    const view = await getPrivateIntegration(A.owner, agencyOwner(A), integration.id);
    expect(view.status).toBe("revoked");
    expect(view.revoked).toEqual({ at: now, reason });
  });

  it("during a rotation both tokens are refused, whichever was reported", async () => {
    const created = await makeIntegration(A, { name: "Rotating" });
    const rotated = await rotateLater(A.owner, agencyOwner(A), created.integration.id);
    await revokeLeakedIntegrationTokens([hashSecret(created.token)], reason, new Date());
    // Both say why: the integration was reported, not only the token that was.
    for (const token of [created.token, rotated.token]) {
      expect(await verifyPrivateIntegrationToken(token)).toMatchObject({
        ok: false,
        refusal: { code: "invalid_token", description: expect.stringMatching(/reported as leaked/) },
      });
    }
  });

  it("only Rotate and expire this token now brings it back, with a new token", async () => {
    const { integration, token } = await leaked("Restored");
    const restored = await rotateNow(A.owner, agencyOwner(A), integration.id);
    expect(restored.integration.status).toBe("active");
    expect(restored.integration.revoked).toBeNull();
    expect((await verifyPrivateIntegrationToken(restored.token)).ok).toBe(true);
    // Brought back, the leaked token is an old one of the integration's, no longer said to be leaked.
    expect(await verifyPrivateIntegrationToken(token)).toEqual({
      ok: false,
      reason: "revoked",
      integrationId: integration.id,
    });
    const audit = await listAuditLog(A.owner, agencyOwner(A), { integrationId: integration.id });
    expect(audit.map((a) => a.action)).toEqual([
      "private_integration_rotated_now",
      "private_integration_revoked_as_leaked",
      "private_integration_created",
    ]);
    expect(audit[1]?.actor).toBeNull();
  });

  it.each([
    ["Rotate and expire this token later", (id: string) => rotateLater(A.owner, agencyOwner(A), id)],
    ["Expire Now", (id: string) => expireNow(A.owner, agencyOwner(A), id)],
    ["Cancel rotation", (id: string) => cancelRotation(A.owner, agencyOwner(A), id)],
  ])("%s is refused with a message that names the way back", async (_name, action) => {
    const { integration } = await leaked();
    await expect(action(integration.id)).rejects.toMatchObject({ kind: "conflict", message: revokedRefusal });
  });

  it("Edit and Delete still work; Edit does not bring a token back", async () => {
    const { integration, token } = await leaked("Edited");
    const edited = await updatePrivateIntegration(A.owner, agencyOwner(A), integration.id, {
      name: "Edited again",
      scopes: ["locations.readonly"],
    });
    expect(edited.status).toBe("revoked");
    expect((await verifyPrivateIntegrationToken(token)).ok).toBe(false);
    await expect(remove(A.owner, agencyOwner(A), integration.id)).resolves.toMatchObject({
      id: integration.id,
    });
  });

  it("a token that no longer works (rotated out, already revoked, unknown) changes nothing", async () => {
    const created = await makeIntegration(A, { name: "Old" });
    await rotateNow(A.owner, agencyOwner(A), created.integration.id);
    expect(await revokeLeakedIntegrationTokens([hashSecret(created.token)], reason, new Date())).toEqual([]);
    expect((await getPrivateIntegration(A.owner, agencyOwner(A), created.integration.id)).status).toBe("active");
    expect(await revokeLeakedIntegrationTokens([hashSecret("pit-unknown")], reason, new Date())).toEqual([]);
    const { token } = await leaked("Twice");
    expect(await revokeLeakedIntegrationTokens([hashSecret(token)], reason, new Date())).toEqual([]);
  });
});
