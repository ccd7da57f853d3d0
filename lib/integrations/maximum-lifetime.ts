import { recordAudit } from "@/lib/accounts/audit";
import type { Actor } from "@/lib/accounts/permissions";
import { db } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { notFound } from "@/lib/refusal";
import { requireIntegrationAccess } from "./access";
import { expiresDateOf, latestAllowedExpiry, parseMaximumTokenLifetime } from "./expiry";
import { auditBy } from "./lifecycle";

/** What `setMaximumTokenLifetime` did. */
export interface MaximumLifetimeChange {
  maximumDays: number | null;
  /** Integrations of the agency and its sub-accounts whose expiry was brought within the maximum. */
  capped: number;
  /** The date they now expire on (YYYY-MM-DD), when any were capped. */
  cappedTo: string | null;
}

/** What saving a maximum would re-date, said before it is saved (SPEC.md: how many, to which date). */
export interface MaximumLifetimePreview {
  maximumDays: number | null;
  /** Integrations of the agency and its sub-accounts with no expiry or a later one. */
  wouldCap: number;
  /** The date they would expire on (YYYY-MM-DD). */
  capTo: string | null;
}

/** The actor's agency, if they may manage its integrations, and `input` read as a maximum (days, or none). */
async function agencyMaximum(actor: Actor, input: string | number | null | undefined) {
  const resolved = await requireIntegrationAccess(actor, { level: "agency", companyId: actor.companyId });
  return { resolved, maximumDays: parseMaximumTokenLifetime(input) };
}

/** Which integrations saving `input` as the maximum at `now` would re-date; changes nothing. */
export async function previewMaximumTokenLifetime(
  actor: Actor,
  input: string | number | null | undefined,
  now: Date = new Date(),
): Promise<MaximumLifetimePreview> {
  const { resolved, maximumDays } = await agencyMaximum(actor, input);
  if (maximumDays === null) return { maximumDays, wouldCap: 0, capTo: null };
  const latest = latestAllowedExpiry(maximumDays, now);
  const wouldCap = await db().privateIntegration.count({ where: cappedWhere(resolved.companyId, latest) });
  return { maximumDays, wouldCap, capTo: wouldCap ? expiresDateOf(latest) : null };
}

/** The integrations a maximum ending at `latest` brings within it: no expiry, or a later one. */
function cappedWhere(companyId: string, latest: Date) {
  return { companyId, OR: [{ expiresAt: null }, { expiresAt: { gt: latest } }] };
}

/**
 * The agency's `Maximum token lifetime` (days; empty: none), for people who may manage the agency's
 * integrations. Decision (README › Guard rails): setting or lowering it caps, in the same
 * transaction, every integration of the agency and its sub-accounts that has no expiry or a later
 * one to the end of today + the maximum, so the policy holds at once and nothing stops working
 * before that date. Audited with the number capped.
 */
export async function setMaximumTokenLifetime(
  actor: Actor,
  input: string | number | null | undefined,
  now: Date = new Date(),
): Promise<MaximumLifetimeChange> {
  const { resolved, maximumDays } = await agencyMaximum(actor, input);
  return changeCachedState(() =>
    db().$transaction(async (tx) => {
      const locked = await tx.$queryRaw<{ maximumTokenLifetimeDays: number | null }[]>`
        SELECT "maximumTokenLifetimeDays" FROM "Company" WHERE id = ${resolved.companyId} FOR UPDATE`;
      if (locked.length === 0) throw notFound("There is no such agency.");
      const before = locked[0]!.maximumTokenLifetimeDays;
      await tx.company.update({ where: { id: resolved.companyId }, data: { maximumTokenLifetimeDays: maximumDays } });
      let capped = 0;
      let cappedTo: string | null = null;
      if (maximumDays !== null) {
        const latest = latestAllowedExpiry(maximumDays, now);
        const result = await tx.privateIntegration.updateMany({
          where: cappedWhere(resolved.companyId, latest),
          data: { expiresAt: latest },
        });
        capped = result.count;
        if (capped > 0) cappedTo = expiresDateOf(latest);
      }
      await recordAudit(tx, {
        ...auditBy(actor, resolved),
        action: "private_integration_maximum_lifetime_changed",
        targetId: resolved.companyId,
        details: { from: before, to: maximumDays, capped, ...(cappedTo ? { cappedTo } : {}) },
      });
      return { maximumDays, capped, cappedTo };
    }),
  );
}
