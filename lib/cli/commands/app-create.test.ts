import { describe, expect, it } from "vitest";
import { secretMatchesHash } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { makeAgency } from "@/lib/testing/fixtures";
import { openWebhookSecret } from "@/lib/webhooks/webhook-secret";
import { runCommand } from "../run";

describe("app:create", () => {
  it("prints appId, versionId, clientId, and the clientSecret and webhookSecret once", async () => {
    const { company } = await makeAgency({ locations: 0 });
    const out = await runCommand("app:create", {
      company: company.id,
      name: "Syncer",
      "redirect-uri": ["https://a.example/cb", "http://localhost:4000/cb"],
      scopes: "contacts.write  oauth.write",
      "install-setting": "agency_only",
      "webhook-url": "https://a.example/hooks",
    });
    expect(Object.keys(out).sort()).toEqual(["appId", "clientId", "clientSecret", "versionId", "webhookSecret"]);
    // The platform's shape: its SDK takes the app id as clientId.split('-')[0].
    expect(out.clientId).toMatch(/^[a-z0-9]+-[0-9a-f]{8}$/);
    expect((out.clientId as string).split("-")[0]).toBe(out.appId);
    expect(out.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from((out.webhookSecret as string).slice("whsec_".length), "base64")).toHaveLength(24);
    const app = await db().app.findUniqueOrThrow({ where: { id: out.appId as string }, include: { versions: true } });
    expect(app).toMatchObject({
      clientId: out.clientId,
      installSetting: "agency_only",
      scopes: ["oauth.write", "contacts.write"],
      redirectUris: ["https://a.example/cb", "http://localhost:4000/cb"],
      webhookUrl: "https://a.example/hooks",
    });
    expect(app.versions.map((v) => v.id)).toEqual([out.versionId]);
    expect(secretMatchesHash(out.clientSecret as string, app.clientSecretHash)).toBe(true);
    // Kept encrypted (the server signs with it), with a hint; never in plain text.
    const secret = out.webhookSecret as string;
    expect(JSON.stringify(app)).not.toContain(secret.slice(6));
    expect(app.webhookSecretHint).toBe(secret.slice(-4));
    expect(openWebhookSecret(app.webhookSecretEncrypted as string)).toBe(secret);
  });

  it("takes one --redirect-uri as well, and refuses bad flags with a sentence", async () => {
    const { company } = await makeAgency({ locations: 0 });
    const flags = {
      company: company.id,
      name: "One",
      "redirect-uri": "https://a.example/cb",
      scopes: "contacts.readonly",
      "install-setting": "everyone",
    };
    expect((await runCommand("app:create", flags)).clientId).toBeTruthy();
    await expect(runCommand("app:create", { ...flags, scopes: "nope" })).rejects.toThrow(/not a known scope/);
    await expect(runCommand("app:create", { ...flags, "install-setting": "all" })).rejects.toThrow(
      /agency_only or everyone/,
    );
    await expect(runCommand("app:create", { ...flags, "redirect-uri": "http://example.com/cb" })).rejects.toThrow(
      /https/,
    );
    await expect(runCommand("app:create", { ...flags, company: "missing" })).rejects.toThrow(/no agency/);
  });
});
