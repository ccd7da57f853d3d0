import type { Tx } from "@/lib/db/client";
import type { UserType } from "@/lib/generated/prisma/client";
import { enqueueWebhookEvents, type OutboxEvent } from "@/lib/webhooks/outbox";

/**
 * INSTALL / UNINSTALL events of SPEC.md, written to the outbox in the transaction that installs
 * or uninstalls. An agency-level change sends one Company event and one Location event per
 * sub-account concerned; a sub-account install sends one Location event. Only apps with a webhook
 * URL get events.
 */

export type InstallEventType = "INSTALL" | "UNINSTALL";

export interface InstallEventContext {
  app: { id: string; webhookUrl: string | null };
  versionId: string;
  company: { id: string; name: string; whitelabelDomain: string | null; whitelabelLogoUrl: string | null };
  userId: string;
}

function payload(
  type: InstallEventType,
  ctx: InstallEventContext,
  installType: UserType,
  locationId: string | null,
  now: Date,
) {
  return {
    type,
    appId: ctx.app.id,
    versionId: ctx.versionId,
    installType,
    locationId,
    companyId: ctx.company.id,
    userId: ctx.userId,
    companyName: ctx.company.name,
    isWhitelabelCompany: Boolean(ctx.company.whitelabelDomain),
    whitelabelDetails: { logoUrl: ctx.company.whitelabelLogoUrl, domain: ctx.company.whitelabelDomain },
    timestamp: now.toISOString(),
  };
}

export async function enqueueInstallEvents(
  tx: Tx,
  type: InstallEventType,
  ctx: InstallEventContext,
  target: { company: boolean; locationIds: string[] },
  now: Date,
): Promise<string[]> {
  const targetUrl = ctx.app.webhookUrl;
  if (!targetUrl) return [];
  const events: OutboxEvent[] = [];
  if (target.company) {
    events.push({ appId: ctx.app.id, type, targetUrl, payload: payload(type, ctx, "Company", null, now) });
  }
  for (const locationId of target.locationIds) {
    events.push({ appId: ctx.app.id, type, targetUrl, payload: payload(type, ctx, "Location", locationId, now) });
  }
  return enqueueWebhookEvents(tx, events, now);
}
