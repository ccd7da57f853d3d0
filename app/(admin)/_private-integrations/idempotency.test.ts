import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Actor } from "@/lib/accounts/permissions";
import { db } from "@/lib/db/client";
import { idempotencyKeyRule } from "@/lib/idempotency/keys";
import { createPrivateIntegration } from "@/lib/integrations/lifecycle";
import { signedInAs } from "@/lib/testing/actor";
import { makeAgency } from "@/lib/testing/fixtures";
import { formData } from "@/lib/testing/form-data";

/** The screens' idempotency keys: the dialog's key sent again gets the first answer; the dialog confirms showing it. */

let signedIn: Actor | null = null;
vi.mock("@/lib/auth/session", () => ({
  getActor: async () => signedIn,
  getSignedIn: async () => (signedIn ? signedInAs(signedIn) : null),
}));
vi.mock("next/cache", () => ({ revalidatePath: vi.fn() }));

const actions = await import("./actions");

beforeEach(() => {
  signedIn = null;
});

describe("the dialog's idempotency key", () => {
  it("Create pressed again after a lost answer: the same integration and token, then shown", async () => {
    const { company, owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    signedIn = owner;
    const fields = { name: "Lost answer", "scopes[]": ["locations.readonly"], idempotencyKey: "dialog-key-1" };
    const first = await actions.createIntegrationAction({}, formData(fields));
    const again = await actions.createIntegrationAction({}, formData(fields));
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(first.data).toMatchObject({ name: "Lost answer", confirmKey: "dialog-key-1" });
    expect(await db().privateIntegration.count({ where: { companyId: company.id } })).toBe(1);

    const integrationId = String(first.data?.integrationId);
    const token = await db().privateIntegrationToken.findFirstOrThrow({ where: { integrationId } });
    expect(token.shownAt).toBeNull();
    expect(await actions.confirmShownAction({}, formData({ idempotencyKey: "dialog-key-1" }))).toEqual({ ok: true });
    const shown = await db().privateIntegrationToken.findFirstOrThrow({ where: { integrationId } });
    expect(shown.shownAt).not.toBeNull();
    // The answer no longer holds the token: sent again, it says so instead of showing it twice.
    expect((await actions.createIntegrationAction({}, formData(fields))).error).toMatch(/its token was shown then/);
  });

  it("the same key with changed values: a form error in people's words, nothing created", async () => {
    const { company, owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    signedIn = owner;
    const fields = { name: "First", "scopes[]": ["locations.readonly"], idempotencyKey: "dialog-key-2" };
    expect((await actions.createIntegrationAction({}, formData(fields))).ok).toBe(true);
    const changed = await actions.createIntegrationAction({}, formData({ ...fields, name: "Changed" }));
    expect(changed.error).toMatch(/already sent with other values .* Reload the page/);
    expect(changed.error).not.toMatch(/idempotency/i);
    expect(await db().privateIntegration.count({ where: { companyId: company.id } })).toBe(1);
  });

  it("a malformed key is refused above the form; no key works as before (shown with the answer)", async () => {
    const { company, owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    signedIn = owner;
    const bad = await actions.createIntegrationAction(
      {},
      formData({ name: "X", "scopes[]": ["locations.readonly"], idempotencyKey: "has spaces" }),
    );
    expect(bad.error).toBe(idempotencyKeyRule);
    const plain = await actions.createIntegrationAction(
      {},
      formData({ name: "X", "scopes[]": ["locations.readonly"] }),
    );
    expect(plain.ok).toBe(true);
    expect(plain.data?.confirmKey).toBeUndefined();
    const tokens = await db().privateIntegrationToken.findMany({ where: { integration: { companyId: company.id } } });
    expect(tokens.map((t) => t.shownAt === null)).toEqual([false]);
  });

  it("Rotate and expire this token now, Retry after a lost answer: the same token, one rotation", async () => {
    const { company, owner } = await makeAgency({ locations: 0, privateIntegrationsLab: true });
    const { integration } = await createPrivateIntegration(
      owner,
      { level: "agency", companyId: company.id },
      { name: "Sync", scopes: ["locations.readonly"] },
    );
    signedIn = owner;
    const fields = { integrationId: integration.id, idempotencyKey: "rotate-key" };
    const first = await actions.rotateNowAction({}, formData(fields));
    const again = await actions.rotateNowAction({}, formData(fields));
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(await db().privateIntegrationToken.count({ where: { integrationId: integration.id } })).toBe(2);

    const later = { ...fields, idempotencyKey: "rotate-later-key", overlapDays: "3" };
    const rotating = await actions.rotateLaterAction({}, formData(later));
    expect(await actions.rotateLaterAction({}, formData(later))).toEqual(rotating);
    expect(rotating.data?.oldTokenExpiresAt).toBeTruthy();
  });
});
