import type { Scope } from "@/lib/scopes";
import { type HoldColumns, type StoredStatus, storedStatus } from "./catalog";
import { type ExpiryStatus, expiryStatus } from "./guard-rails";

/** A person named on the screens: creator, audit-log actor. */
export interface TeamMemberName {
  id: string;
  name: string;
  removed: boolean;
  /** A private integration that acted through the management API, not a person (`removed`: since deleted). */
  integration?: true;
}

/** Old and new tokens both work this long after "Rotate and expire this token later" unless another overlap is chosen (guard-rails.ts). */
export const ROTATION_OVERLAP_MS = 7 * 24 * 60 * 60 * 1000;
/** Rotation is recommended every 90 days: the screens flag tokens at least this old. */
export const ROTATION_RECOMMENDED_MS = 90 * 24 * 60 * 60 * 1000;
/**
 * A token a screen has not said it showed this long after it was issued reads `Token never shown`:
 * its answer was lost (and its dialog with it). Before, its dialog may be about to show it.
 */
export const TOKEN_NEVER_SHOWN_AFTER_MS = 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface TokenView {
  id: string;
  /** `pit-…abcd`; the token itself is never stored. */
  hint: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** One integration as the screens show it; no hash, no secret. */
export interface PrivateIntegrationView {
  id: string;
  level: "agency" | "location";
  companyId: string;
  locationId: string | null;
  name: string;
  description: string;
  scopes: Scope[];
  createdAt: Date;
  updatedAt: Date;
  /** Who created it; `removed` once they were removed from the team (their name still says who it was). */
  createdBy: TeamMemberName | null;
  status: StoredStatus;
  /** While `revoked`: when and why (reported as leaked); only `Rotate and expire this token now` brings it back. */
  revoked: { at: Date; reason: string } | null;
  /** The token issued last; `neverShown`: its answer never reached a screen (`Token never shown`). */
  token: TokenView & { ageDays: number; rotationDue: boolean; neverShown: boolean };
  /**
   * While rotating: the old token, the moment it stops working, when the rotation began (null for
   * one begun before that was recorded) and the address of its last use.
   */
  previousToken: (TokenView & { expiresAt: Date; rotatedAt: Date | null; lastUsedAddress: string | null }) | null;
  /** The latest use of any of its tokens. */
  lastUsedAt: Date | null;
  /** The client address of that latest use (lib/client-address.ts). */
  lastUsedAddress: string | null;
  /** `Expires`: the moment its tokens stop working, or null for never. */
  expiresAt: Date | null;
  /** `Expires in N days` / `Expired` at the time of the view. */
  expiry: ExpiryStatus;
  /** `Sub-accounts` (agency integrations): all, or the chosen ones with their names. */
  subAccounts: { all: true } | { all: false; chosen: { id: string; name: string }[] };
  /** `Allowed IP addresses`, normalised; empty: any address. */
  allowedIpAddresses: string[];
}

export interface TokenRow {
  id: string;
  slot: "current" | "previous" | null;
  hint: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  lastUsedAddress: string | null;
  /** Set while it is the previous token: when its rotation began. */
  rotatedOutAt?: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  /** Null while a screen has not said it showed the token (`Token never shown`). */
  shownAt: Date | null;
}

/** An integration's row as the views read it: its columns that hold it in a status (./catalog.ts) included. */
export interface IntegrationRow extends HoldColumns {
  id: string;
  companyId: string;
  locationId: string | null;
  name: string;
  description: string;
  scopes: string[];
  createdByUserId: string | null;
  /** Created through the management API by this integration. */
  createdByIntegrationId?: string | null;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date | null;
  allSubAccounts: boolean;
  allowedIpAddresses: string[];
  revokedReason: string | null;
  chosenLocations: { locationId: string; location: { name: string } }[];
  tokens: TokenRow[];
}

/** Whether a token still opens the API at `now`; expiry is decided here, at check time. */
export function tokenIsLive(token: Pick<TokenRow, "slot" | "expiresAt" | "revokedAt">, now: Date): boolean {
  return (
    token.slot !== null &&
    token.revokedAt === null &&
    (token.expiresAt === null || token.expiresAt.getTime() > now.getTime())
  );
}

export function currentToken(row: IntegrationRow): TokenRow | undefined {
  return row.tokens.find((t) => t.slot === "current" && t.revokedAt === null);
}

/** The previous token while it still works (rotation in progress), else undefined. */
export function livePreviousToken(row: IntegrationRow, now: Date): TokenRow | undefined {
  return row.tokens.find((t) => t.slot === "previous" && tokenIsLive(t, now));
}

export function toView(
  row: IntegrationRow,
  now: Date,
  creators: ReadonlyMap<string, TeamMemberName>,
): PrivateIntegrationView {
  const current = currentToken(row);
  const previous = livePreviousToken(row, now);
  const age = current ? now.getTime() - current.createdAt.getTime() : 0;
  const uses = [current, previous].filter((t): t is TokenRow & { lastUsedAt: Date } => t?.lastUsedAt instanceof Date);
  const lastUse = uses.sort((a, b) => b.lastUsedAt.getTime() - a.lastUsedAt.getTime())[0];
  const pick = (t: TokenRow): TokenView => ({
    id: t.id,
    hint: t.hint,
    createdAt: t.createdAt,
    lastUsedAt: t.lastUsedAt,
  });
  return {
    id: row.id,
    level: row.locationId ? "location" : "agency",
    companyId: row.companyId,
    locationId: row.locationId,
    name: row.name,
    description: row.description,
    scopes: row.scopes as Scope[],
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    createdBy: row.createdByUserId
      ? (creators.get(row.createdByUserId) ?? null)
      : row.createdByIntegrationId
        ? (creators.get(row.createdByIntegrationId) ?? {
            id: row.createdByIntegrationId,
            name: "A private integration",
            removed: true,
            integration: true,
          })
        : null,
    status: storedStatus(row, previous !== undefined),
    revoked: row.revokedAt ? { at: row.revokedAt, reason: row.revokedReason ?? "Reported as leaked." } : null,
    token: {
      ...(current ? pick(current) : { id: "", hint: "—", createdAt: row.createdAt, lastUsedAt: null }),
      ageDays: Math.floor(age / DAY_MS),
      rotationDue: age >= ROTATION_RECOMMENDED_MS,
      neverShown: current?.shownAt === null && age >= TOKEN_NEVER_SHOWN_AFTER_MS,
    },
    previousToken: previous
      ? {
          ...pick(previous),
          expiresAt: previous.expiresAt!,
          rotatedAt: previous.rotatedOutAt ?? null,
          lastUsedAddress: previous.lastUsedAddress,
        }
      : null,
    lastUsedAt: lastUse?.lastUsedAt ?? null,
    lastUsedAddress: lastUse?.lastUsedAddress ?? null,
    expiresAt: row.expiresAt,
    expiry: expiryStatus(row.expiresAt, now),
    subAccounts: row.allSubAccounts
      ? { all: true }
      : { all: false, chosen: row.chosenLocations.map((c) => ({ id: c.locationId, name: c.location.name })) },
    allowedIpAddresses: row.allowedIpAddresses,
  };
}
