import { db } from "@/lib/db/client";
import { type IntegrationOwner, type LifecycleActor, requireIntegrationAccess } from "@/lib/integrations/access";
import { notFoundMessage, ownerWhere } from "@/lib/integrations/read";
import { notFound } from "@/lib/refusal";
import type { Refusal } from "./counter";
import {
  integrationUsageDays,
  integrationUsageTotals,
  lastRefusedRequest,
  type UsageDay,
  type UsageTotals,
} from "./read";

/** The chart's span on an integration's details (SPEC.md › Usage and reminders). */
export const DETAILS_DAYS = 30;

/** What an integration's details show of its usage. */
export interface IntegrationUsageDetails {
  /** The last 30 UTC days, today last, zeros included. */
  days: UsageDay[];
  last24Hours: UsageTotals;
  last7Days: UsageTotals;
  lastRefusal: Refusal | null;
}

/**
 * One integration's usage for its details, read when they open (not with the list: 500 charts
 * would make the page heavy). The same gate as the screen's list read (own agency or sub-account,
 * Labs on, permission), and the integration must be this owner's: another's is "not found".
 */
export async function integrationUsageDetails(
  actor: LifecycleActor,
  owner: IntegrationOwner,
  integrationId: string,
  now: Date,
): Promise<IntegrationUsageDetails> {
  const resolved = await requireIntegrationAccess(actor, owner, "read");
  const found = await db().privateIntegration.findFirst({
    where: { id: integrationId, ...ownerWhere(resolved) },
    select: { id: true },
  });
  if (!found) throw notFound(notFoundMessage);
  const [days, totals, lastRefusal] = await Promise.all([
    integrationUsageDays(integrationId, DETAILS_DAYS, now),
    integrationUsageTotals(integrationId, now),
    lastRefusedRequest(integrationId),
  ]);
  return { days, ...totals, lastRefusal: lastRefusal ?? null };
}
