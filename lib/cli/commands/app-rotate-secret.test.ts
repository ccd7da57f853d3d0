import { describe, expect, it } from "vitest";
import { secretMatchesHash } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { makeAgency } from "@/lib/testing/fixtures";
import { makeApp } from "@/lib/testing/oauth";
import { runCommand } from "../run";

const HOUR_MS = 3_600_000;

describe("app:rotate-secret", () => {
  it('prints {"clientSecret"} once; the secret it replaced works 24 hours by default', async () => {
    const { company } = await makeAgency({ locations: 0 });
    const created = await makeApp(company.id);
    const before = Date.now();
    const out = await runCommand("app:rotate-secret", { app: created.app.id });
    expect(Object.keys(out)).toEqual(["clientSecret"]);
    const secret = out.clientSecret as string;
    expect(secret).not.toBe(created.clientSecret);
    const app = await db().app.findUniqueOrThrow({ where: { id: created.app.id } });
    expect(secretMatchesHash(secret, app.clientSecretHash)).toBe(true);
    expect(app.clientSecretHint).toBe(secret.slice(-4));
    expect(secretMatchesHash(created.clientSecret, app.previousClientSecretHash ?? "")).toBe(true);
    const until = app.previousClientSecretExpiresAt?.getTime() ?? 0;
    expect(until).toBeGreaterThanOrEqual(before + 24 * HOUR_MS);
    expect(until).toBeLessThanOrEqual(Date.now() + 24 * HOUR_MS);
    // Audited without a person: the operator's command.
    const audit = await db().auditLog.findFirstOrThrow({ where: { targetId: app.id, action: "app_secret_rotated" } });
    expect(audit).toMatchObject({ actorUserId: null, details: expect.objectContaining({ overlap: "24h" }) });
    expect(JSON.stringify(audit)).not.toContain(secret);
  });

  it("takes --overlap 1h or 7d, and refuses other overlaps and unknown apps with a sentence", async () => {
    const { company } = await makeAgency({ locations: 0 });
    const { app } = await makeApp(company.id);
    const before = Date.now();
    await runCommand("app:rotate-secret", { app: app.id, overlap: "7d" });
    const stored = await db().app.findUniqueOrThrow({ where: { id: app.id } });
    expect((stored.previousClientSecretExpiresAt?.getTime() ?? 0) - before).toBeGreaterThanOrEqual(7 * 24 * HOUR_MS);
    await runCommand("app:rotate-secret", { app: app.id, overlap: "1h" });
    const again = await db().app.findUniqueOrThrow({ where: { id: app.id } });
    expect((again.previousClientSecretExpiresAt?.getTime() ?? 0) - Date.now()).toBeLessThanOrEqual(HOUR_MS);
    await expect(runCommand("app:rotate-secret", { app: app.id, overlap: "2d" })).rejects.toThrow(
      /--overlap: must be 1h, 24h, 7d/,
    );
    await expect(runCommand("app:rotate-secret", { app: "no-such-app" })).rejects.toThrow(/no app with id/);
    await expect(runCommand("app:rotate-secret", {})).rejects.toThrow(/--app is required/);
  });
});
