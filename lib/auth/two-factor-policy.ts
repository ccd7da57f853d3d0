import { recordAudit } from "@/lib/accounts/audit";
import type { Actor } from "@/lib/accounts/permissions";
import { secondFactorsOf } from "@/lib/auth/two-factor/factors";
import { db } from "@/lib/db/client";
import { conflict, forbidden } from "@/lib/refusal";

/**
 * The agency's `Require two-factor authentication` (SPEC.md › Sign-in that guards every credential
 * › Agency policy): while it is on, members of the agency and its sub-accounts without a second
 * factor can do nothing but set one up (lib/auth/session.ts sends them to /settings/account,
 * lib/auth/actions.ts refuses every other action). Only the owner switches it, and turns it on
 * only once their own two-factor is on, so the switch never locks out the person who pressed it.
 */
export async function requiresTwoFactor(companyId: string): Promise<boolean> {
  const company = await db().company.findUnique({ where: { id: companyId }, select: { requireTwoFactor: true } });
  return company?.requireTwoFactor ?? false;
}

export async function setRequireTwoFactor(actor: Actor, enabled: boolean): Promise<void> {
  if (actor.role !== "agency_owner") {
    throw forbidden("Only the agency's owner can require two-factor authentication.");
  }
  if (enabled && !(await secondFactorsOf(actor.id)).on) {
    throw conflict(
      "Set up two-factor authentication for yourself first (Settings › Account), then require it of your team.",
    );
  }
  await db().$transaction(async (tx) => {
    const before = await tx.company.findUniqueOrThrow({
      where: { id: actor.companyId },
      select: { requireTwoFactor: true },
    });
    if (before.requireTwoFactor === enabled) return;
    await tx.company.update({ where: { id: actor.companyId }, data: { requireTwoFactor: enabled } });
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.id,
      action: "two_factor_policy_changed",
      details: { requireTwoFactor: enabled },
    });
  });
}
