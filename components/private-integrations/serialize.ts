import { formatDay } from "@/lib/dates/format";
import type { IntegrationAuditEntry } from "@/lib/integrations/audit-log";
import { expiresDateOf } from "@/lib/integrations/guard-rails";
import type { PrivateIntegrationView } from "@/lib/integrations/views";
import type { AuditDetail, AuditItem, IntegrationItem } from "./types";

/** A person's name as the screens show it: a removed team member still names what they did. */
export function memberName(person: { name: string; removed: boolean; integration?: true }): string {
  if (person.integration) return integrationActorName(person.removed ? { name: null } : person);
  return person.removed ? `${person.name} (removed)` : person.name;
}

/** An integration that acted through the management API, as the audit list names it. */
export function integrationActorName(integration: { name: string | null }): string {
  return integration.name === null
    ? "A private integration (deleted), through the API"
    : `${integration.name} (private integration, through the API)`;
}

/** What the client component receives: plain strings, no hash, no secret. */
export function toIntegrationItem(view: PrivateIntegrationView): IntegrationItem {
  return {
    id: view.id,
    name: view.name,
    description: view.description,
    scopes: view.scopes,
    createdAt: view.createdAt.toISOString(),
    createdBy: view.createdBy ? memberName(view.createdBy) : null,
    lastUsedAt: view.lastUsedAt?.toISOString() ?? null,
    status: view.status,
    revoked: view.revoked ? { at: view.revoked.at.toISOString(), reason: view.revoked.reason } : null,
    token: {
      hint: view.token.hint,
      createdAt: view.token.createdAt.toISOString(),
      ageDays: view.token.ageDays,
      rotationDue: view.token.rotationDue,
      neverShown: view.token.neverShown,
    },
    previousToken: view.previousToken
      ? {
          hint: view.previousToken.hint,
          expiresAt: view.previousToken.expiresAt.toISOString(),
          lastUsedAt: view.previousToken.lastUsedAt?.toISOString() ?? null,
          lastUsedAddress: view.previousToken.lastUsedAddress,
          rotatedAt: view.previousToken.rotatedAt?.toISOString() ?? null,
        }
      : null,
    lastUsedAddress: view.lastUsedAddress,
    expires: view.expiresAt ? expiresDateOf(view.expiresAt) : "",
    expiresAt: view.expiresAt?.toISOString() ?? null,
    expiry: view.expiry,
    subAccounts: view.subAccounts,
    allowedIpAddresses: view.allowedIpAddresses,
  };
}

const str = (v: unknown) => (typeof v === "string" ? v : undefined);
const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** The audit entry's non-secret details as short sentences. */
export function toAuditItem(entry: IntegrationAuditEntry): AuditItem {
  const d = entry.details;
  const details: AuditDetail[] = [];
  const renamedFrom = str(d.renamedFrom);
  if (renamedFrom) details.push(`Renamed from “${renamedFrom}”`);
  if (d.descriptionChanged === true) details.push("Description changed");
  const added = list(d.scopesAdded);
  const removed = list(d.scopesRemoved);
  if (added.length) details.push(`Scopes added: ${added.join(", ")}`);
  if (removed.length) details.push(`Scopes removed: ${removed.join(", ")}`);
  if (entry.action === "private_integration_created" || entry.action === "private_integration_deleted") {
    const scopes = list(d.scopes);
    if (scopes.length) details.push(`Scopes: ${scopes.join(", ")}`);
  }
  const tokenHint = str(d.tokenHint);
  if (tokenHint) details.push(`New token ${tokenHint}`);
  const oldHint = str(d.oldTokenHint);
  const oldExpires = str(d.oldTokenExpiresAt);
  if (oldHint) {
    details.push(
      oldExpires
        ? { text: `Old token ${oldHint} works until`, at: oldExpires }
        : `Old token ${oldHint} stopped working`,
    );
  }
  const changed = list(d.guardRailsChanged);
  const railsShown = entry.action === "private_integration_created" || changed.length > 0;
  if (railsShown && (entry.action === "private_integration_created" || changed.includes("expires"))) {
    const expires = str(d.expires);
    if (expires || changed.includes("expires")) details.push(`Expires: ${expires ? formatDay(expires) : "never"}`);
  }
  if (railsShown && (entry.action === "private_integration_created" || changed.includes("subAccounts"))) {
    const chosen = list(d.subAccounts);
    if (Array.isArray(d.subAccounts) || changed.includes("subAccounts")) {
      details.push(Array.isArray(d.subAccounts) ? `Sub-accounts: ${chosen.length} chosen` : "Sub-accounts: all");
    }
  }
  if (railsShown && (entry.action === "private_integration_created" || changed.includes("allowedIpAddresses"))) {
    const addresses = list(d.allowedIpAddresses);
    if (addresses.length || changed.includes("allowedIpAddresses")) {
      details.push(`Allowed IP addresses: ${addresses.length ? addresses.join(", ") : "any"}`);
    }
  }
  if (entry.action === "private_integration_maximum_lifetime_changed") {
    const to = typeof d.to === "number" ? `${d.to} days` : "none";
    details.push(`Maximum token lifetime: ${to}`);
    if (typeof d.capped === "number" && d.capped > 0)
      details.push(`${d.capped} capped to ${formatDay(str(d.cappedTo) ?? "it")}`);
  }
  const reason = str(d.reason);
  if (entry.action === "private_integration_revoked_as_leaked" && reason) details.push(reason);
  const cancelled = str(d.cancelledTokenHint);
  const kept = str(d.keptTokenHint);
  if (cancelled) details.push(`Token ${cancelled} stopped working`);
  if (kept) details.push(`Token ${kept} kept`);
  return {
    id: entry.id,
    integrationId: entry.integrationId,
    label: entry.label,
    at: entry.at.toISOString(),
    integrationName: entry.integrationName,
    actor: entry.actor
      ? memberName(entry.actor)
      : entry.actorIntegration
        ? integrationActorName(entry.actorIntegration)
        : null,
    details,
  };
}
