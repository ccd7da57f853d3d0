import type { ActionState } from "@/lib/auth/actions";

/** A server action as the screens call it (the shape `actorAction` builds). */
export type FormAction = (prev: ActionState, formData: FormData) => Promise<ActionState>;

/** The lifecycle actions of the screen (both levels), all checked again on the server. */
export interface IntegrationActions {
  create: FormAction;
  update: FormAction;
  rotateLater: FormAction;
  rotateNow: FormAction;
  expireNow: FormAction;
  cancelRotation: FormAction;
  remove: FormAction;
  /** The agency's `Maximum token lifetime` (agency screen only). */
  setMaximumLifetime?: FormAction;
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
  status: "active" | "rotating" | "revoked";
  /** While `revoked`: when (ISO) and why (reported as leaked). */
  revoked: { at: string; reason: string } | null;
  token: { hint: string; createdAt: string; ageDays: number; rotationDue: boolean };
  previousToken: { hint: string; expiresAt: string; lastUsedAt: string | null } | null;
  lastUsedAddress: string | null;
  /** `Expires` as the field shows it (YYYY-MM-DD, the last day it works), or "" for never. */
  expires: string;
  /** The moment the tokens stop working, or null for never. */
  expiresAt: string | null;
  expiry: { kind: "never" } | { kind: "expires"; days: number } | { kind: "expired" };
  subAccounts: { all: true } | { all: false; chosen: SubAccountOption[] };
  allowedIpAddresses: string[];
  /** API requests in the last 7 days; filled in by the usage issue, "—" until then. */
  requests7d?: number;
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
  details: string[];
}
