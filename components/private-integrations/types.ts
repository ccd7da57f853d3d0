import type { ActionState } from "@/lib/auth/actions";
import type { LifecycleKind, StoredStatus } from "@/lib/integrations/catalog";
import type { ListPage, ListQuery } from "@/lib/integrations/list-page";

/** A server action as the screens call it (the shape `actorAction` builds). */
export type FormAction = (prev: ActionState, formData: FormData) => Promise<ActionState>;

/**
 * The screen's server actions (both levels), all checked again on the server: one per lifecycle
 * action of the catalogue (lib/integrations/catalog.ts), create, update and the reads.
 */
export interface IntegrationActions extends Record<LifecycleKind, FormAction> {
  create: FormAction;
  update: FormAction;
  /** The agency's `Maximum token lifetime` (agency screen only). */
  setMaximumLifetime?: FormAction;
  /** Reads one integration's usage when its details open (`data.usage`: an `IntegrationUsage`). */
  readUsage?: FormAction;
  /** The token dialog showed the token of the answer to `idempotencyKey` (no longer `Token never shown`). */
  confirmShown?: FormAction;
  /** `Show more` under Activity and a history: the page after `beforeAt`/`beforeId` (`data.activity`: an `AuditPage`). */
  readActivity?: FormAction;
}

/** One day of the usage chart (UTC). */
export interface UsageDayItem {
  /** `YYYY-MM-DD`. */
  date: string;
  ok: number;
  refused: number;
  limited: number;
}

export interface UsageTotalsItem {
  ok: number;
  refused: number;
  limited: number;
  total: number;
}

/** An integration's usage as its details show it (SPEC.md › Usage and reminders). */
export interface IntegrationUsage {
  /** The last 30 UTC days, today last. */
  days: UsageDayItem[];
  last24Hours: UsageTotalsItem;
  last7Days: UsageTotalsItem;
  /** When it was read (the server's clock, ISO): the last refused request reads relative to it. */
  readAt: string;
  /** The last 4xx other than 429, if any: when (ISO), from which address, which endpoint, why. */
  lastRefusal: { at: string; address: string; endpoint: string; errorCode: string; description: string } | null;
}

/** A sub-account of the agency, for the `Sub-accounts` choice. */
export interface SubAccountOption {
  id: string;
  name: string;
}

/** One integration as the client receives it: dates as ISO strings, no secret. */
export interface IntegrationItem {
  id: string;
  name: string;
  description: string;
  scopes: string[];
  createdAt: string;
  createdBy: string | null;
  lastUsedAt: string | null;
  status: StoredStatus;
  /** While `revoked`: when (ISO) and why (reported as leaked). */
  revoked: { at: string; reason: string } | null;
  /** `neverShown`: its answer was lost before any screen showed it (`Token never shown`). */
  token: { hint: string; createdAt: string; ageDays: number; rotationDue: boolean; neverShown: boolean };
  /** While rotating: `rotatedAt`, when the rotation began (null: not recorded); its last use and from where. */
  previousToken: {
    hint: string;
    expiresAt: string;
    lastUsedAt: string | null;
    lastUsedAddress: string | null;
    rotatedAt: string | null;
  } | null;
  lastUsedAddress: string | null;
  /** `Expires` as the field shows it (YYYY-MM-DD, the last day it works), or "" for never. */
  expires: string;
  /** The moment the tokens stop working, or null for never. */
  expiresAt: string | null;
  expiry: { kind: "never" } | { kind: "expires"; days: number } | { kind: "expired" };
  subAccounts: { all: true } | { all: false; chosen: SubAccountOption[] };
  allowedIpAddresses: string[];
  /** API requests in the last 7 days, every outcome ("—" when not given). */
  requests7d?: number;
}

/** The list's page as the server worked it out, and the query (search, filter, order, page) it answers. */
export interface IntegrationList extends ListPage<IntegrationItem> {
  query: ListQuery;
}

export interface ScopeOption {
  name: string;
  description: string;
}

export interface ScopeGroup {
  group: string;
  scopes: ScopeOption[];
}

export interface AuditItem {
  id: string;
  integrationId: string | null;
  label: string;
  at: string;
  integrationName: string;
  actor: string | null;
  details: AuditDetail[];
}

/** One detail of an audit entry: words, or words followed by an instant shown in the viewer's zone. */
export type AuditDetail = string | { text: string; at: string };

/** A page of audit entries, newest first, and whether older ones exist. */
export interface AuditPage {
  entries: AuditItem[];
  more: boolean;
}
