import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { auditTrail } from "@/lib/testing/audit";
import { makeAgency } from "@/lib/testing/fixtures";
import { personWithTotp } from "@/lib/testing/two-factor";
import { beginTotpSetup, confirmTotpSetup, removeTotp } from "./authenticator-app";
import { redeemSecondFactorCode, regenerateRecoveryCodes, resetTwoFactor, secondFactorsOf } from "./factors";
import { totpCodeAt } from "./totp";

const t0 = new Date("2099-05-01T12:00:00Z");
/** The moment `seconds` seconds after t0: the authenticator app counts in 30-second steps. */
const atSecond = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

const auditActions = async (userId: string) => (await auditTrail(userId)).map((entry) => entry.action);

describe("authenticator app", () => {
  it("turns two-factor on at the first good code, with ten recovery codes, audited; the secret stored encrypted", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const { secret, uri } = await beginTotpSetup(owner);
    expect(new URL(uri).searchParams.get("secret")).toBe(secret);
    expect((await secondFactorsOf(owner.id)).on).toBe(false);
    await expect(confirmTotpSetup(owner.id, "000000", t0)).rejects.toMatchObject({ kind: "invalid", field: "code" });
    const { recoveryCodes } = await confirmTotpSetup(owner.id, totpCodeAt(secret, t0), t0);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    expect(await secondFactorsOf(owner.id)).toMatchObject({ on: true, totp: true, recoveryCodesLeft: 10 });
    const row = await db().totpFactor.findUniqueOrThrow({ where: { userId: owner.id } });
    expect(row.secretEncrypted).not.toContain(secret);
    const stored = JSON.stringify(await db().recoveryCode.findMany({ where: { userId: owner.id } }));
    for (const code of recoveryCodes ?? []) {
      expect(stored).not.toContain(code);
      expect(stored).not.toContain(code.replace("-", ""));
    }
    expect(await auditActions(owner.id)).toEqual(expect.arrayContaining(["totp_added", "two_factor_enabled"]));
    await expect(beginTotpSetup(owner)).rejects.toMatchObject({ kind: "conflict" });
  });

  it("accepts each code once, and never an older step after a newer one (property)", async () => {
    const { owner, secret } = await personWithTotp(t0);
    let clock = 60;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: -1, max: 1 }), { minLength: 1, maxLength: 6 }), async (offsets) => {
        clock += 90; // a fresh step each run, past the set-up's
        const now = atSecond(clock);
        const accepted: number[] = [];
        for (const offset of offsets) {
          const code = totpCodeAt(secret, atSecond(clock + offset * 30));
          if (await redeemSecondFactorCode(owner.id, code, now)) accepted.push(offset);
        }
        // Accepted offsets strictly increase: a step's code once, no step before an accepted one.
        for (let i = 1; i < accepted.length; i++) expect(accepted[i]).toBeGreaterThan(accepted[i - 1] ?? -2);
        expect(accepted[0]).toBe(offsets[0]);
      }),
      { numRuns: 25 },
    );
  });

  it("refuses the set-up's own code a second time", async () => {
    const { owner, secret } = await personWithTotp(t0);
    expect(await redeemSecondFactorCode(owner.id, totpCodeAt(secret, t0), t0)).toBeNull();
    expect(await redeemSecondFactorCode(owner.id, totpCodeAt(secret, atSecond(30)), atSecond(30))).toEqual({
      via: "totp",
    });
  });

  it("removing the last factor turns two-factor off and deletes the recovery codes, audited", async () => {
    const { owner, recoveryCodes } = await personWithTotp(t0);
    await removeTotp(owner.id, atSecond(10));
    expect(await secondFactorsOf(owner.id)).toMatchObject({ on: false, totp: false, recoveryCodesLeft: 0 });
    expect(await redeemSecondFactorCode(owner.id, recoveryCodes[0] ?? "", atSecond(20))).toBeNull();
    expect(await auditActions(owner.id)).toEqual(expect.arrayContaining(["totp_removed", "two_factor_disabled"]));
    await expect(removeTotp(owner.id)).rejects.toMatchObject({ kind: "not_found" });
  });
});

describe("recovery codes", () => {
  it("each works once, typed in any case and with or without its dash or spaces", async () => {
    const { owner, recoveryCodes } = await personWithTotp(t0);
    const [first = "", second = ""] = recoveryCodes;
    expect(await redeemSecondFactorCode(owner.id, ` ${first.toUpperCase()} `, atSecond(5))).toEqual({
      via: "recovery-code",
      left: 9,
    });
    expect(await redeemSecondFactorCode(owner.id, first, atSecond(6))).toBeNull();
    expect(await redeemSecondFactorCode(owner.id, second.replace("-", " "), atSecond(7))).toMatchObject({ left: 8 });
    expect(await redeemSecondFactorCode(owner.id, "aaaaa-aaaaa", atSecond(8))).toBeNull();
  });

  it("are one person's own: another person's code does nothing", async () => {
    const a = await personWithTotp(t0);
    const b = await personWithTotp(t0);
    expect(await redeemSecondFactorCode(b.owner.id, a.recoveryCodes[0] ?? "", atSecond(5))).toBeNull();
    expect(await redeemSecondFactorCode(a.owner.id, a.recoveryCodes[0] ?? "", atSecond(5))).not.toBeNull();
  });

  it("regenerating replaces every one", async () => {
    const { owner, recoveryCodes } = await personWithTotp(t0);
    const fresh = await regenerateRecoveryCodes(owner.id, atSecond(5));
    expect(fresh).toHaveLength(10);
    expect(await redeemSecondFactorCode(owner.id, recoveryCodes[0] ?? "", atSecond(6))).toBeNull();
    expect(await redeemSecondFactorCode(owner.id, fresh[0] ?? "", atSecond(7))).toMatchObject({ via: "recovery-code" });
    expect(await auditActions(owner.id)).toContain("recovery_codes_regenerated");
  });

  it("cannot be regenerated without two-factor", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    await expect(regenerateRecoveryCodes(owner.id)).rejects.toMatchObject({ kind: "conflict" });
  });
});

describe("user:reset-2fa", () => {
  it("removes every factor and code and ends every session of the person", async () => {
    const { owner, recoveryCodes } = await personWithTotp(t0);
    await db().userSession.create({
      data: {
        id: `s-${owner.id}`,
        userId: owner.id,
        sessionVersion: 0,
        userAgent: "",
        address: "203.0.113.1",
        signedInAt: t0,
        lastActiveAt: t0,
        authenticatedAt: t0,
        expiresAt: atSecond(3600),
      },
    });
    expect(await resetTwoFactor(owner.email.toUpperCase(), atSecond(10))).toEqual({ id: owner.id });
    expect(await secondFactorsOf(owner.id)).toMatchObject({ on: false, recoveryCodesLeft: 0 });
    expect(await redeemSecondFactorCode(owner.id, recoveryCodes[1] ?? "", atSecond(20))).toBeNull();
    const user = await db().user.findUniqueOrThrow({ where: { id: owner.id } });
    expect(user.sessionVersion).toBe(1);
    expect((await db().userSession.findUniqueOrThrow({ where: { id: `s-${owner.id}` } })).endedAt).toEqual(
      atSecond(10),
    );
    const disabled = await db().auditLog.findFirstOrThrow({
      where: { targetId: owner.id, action: "two_factor_disabled" },
    });
    expect(disabled).toMatchObject({ actorUserId: null, details: { by: "operator" } });
    await expect(resetTwoFactor("nobody@example.test")).rejects.toMatchObject({ kind: "not_found" });
  });
});
