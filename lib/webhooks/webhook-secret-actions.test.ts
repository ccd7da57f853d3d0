import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Actor } from "@/lib/accounts/permissions";
import { db } from "@/lib/db/client";
import { signedInAs } from "@/lib/testing/actor";
import { makeAgency, makeUser } from "@/lib/testing/fixtures";
import { formData } from "@/lib/testing/form-data";
import { makeApp } from "@/lib/testing/oauth";
import { openWebhookSecret, webhookSecretsForSigning } from "./webhook-secret";

// The server actions run outside Next.js here: the session and the cache are stand-ins.
const session = vi.hoisted(() => ({ actor: null as Actor | null }));
vi.mock("@/lib/auth/session", () => ({
  getActor: async () => session.actor,
  getSignedIn: async () => (session.actor ? signedInAs(session.actor) : null),
}));
vi.mock("next/cache", () => ({ revalidatePath: vi.fn() }));
const { createAppAction, rotateWebhookSecretAction } = await import("@/app/(admin)/developer/apps/actions");

beforeEach(() => {
  session.actor = null;
});

describe("the developer screens' webhook secret", () => {
  it("is shown once when the app is created from the form, beside the client secret", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    session.actor = owner;
    const state = await createAppAction(
      {},
      formData({
        name: "Form app",
        redirectUris: "https://form.example/cb",
        "scopes[]": ["contacts.readonly"],
        installSetting: "everyone",
      }),
    );
    expect(state).toMatchObject({ ok: true });
    const data = state.data as { appId: string; clientId: string; webhookSecret: string };
    expect(data.clientId.split("-")[0]).toBe(data.appId);
    expect(data.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const row = await db().app.findUniqueOrThrow({ where: { id: data.appId } });
    expect(openWebhookSecret(row.webhookSecretEncrypted as string)).toBe(data.webhookSecret);
  });

  it("is rotated by the app's agency's owners and admins only, and the new one is shown once", async () => {
    const { company } = await makeAgency({ locations: 0 });
    const created = await makeApp(company.id);
    const fields = formData({ appId: created.app.id });

    expect(await rotateWebhookSecretAction({}, fields)).toEqual({ error: "Your session has ended. Sign in again." });
    session.actor = await makeUser(company.id, "agency_user");
    expect(await rotateWebhookSecretAction({}, fields)).toMatchObject({
      error: expect.stringMatching(/owners and admins/),
    });
    session.actor = (await makeAgency({ locations: 0 })).owner;
    expect(await rotateWebhookSecretAction({}, fields)).toMatchObject({
      error: "There is no such app in your agency.",
    });
    expect(await rotateWebhookSecretAction({}, formData({}))).toMatchObject({ error: expect.any(String) });
    expect(await webhookSecretsForSigning(created.app.id)).toEqual([created.webhookSecret]);

    session.actor = await makeUser(company.id, "agency_admin");
    const state = await rotateWebhookSecretAction({}, fields);
    expect(state).toMatchObject({
      ok: true,
      message: expect.stringContaining("The previous one keeps signing too for 24 hours."),
    });
    const { webhookSecret } = state.data as { webhookSecret: string };
    expect(await webhookSecretsForSigning(created.app.id)).toEqual([webhookSecret, created.webhookSecret]);
  });
});
