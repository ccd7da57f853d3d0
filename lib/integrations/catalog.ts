// Over 250 lines on purpose: the catalogue is the one place each status and lifecycle action is
// written, so that a new one is one entry here; split, it would be two files to touch.
/**
 * The integration's words, each written once: its statuses (SPEC.md's, in the order the screens
 * list them) and its lifecycle actions. Every layer (the triage rules, the stored view, the list's
 * SQL, the token check, the screen's items and badges, the management API's schema) derives its
 * list from here, so a new status is one entry and a compile error wherever it must be handled.
 */

import type { PrivateIntegration } from "@/lib/generated/prisma/client";
import type { TokenRefusal } from "@/lib/tokens/principal";

/** A column of an integration's row that may hold a moment (set) or nothing. */
type MomentColumn = {
  [K in keyof PrivateIntegration]: PrivateIntegration[K] extends Date | null
    ? null extends PrivateIntegration[K]
      ? K
      : never
    : never;
}[keyof PrivateIntegration];

/** The badge tones a status may take (components/private-integrations/integration-card.tsx draws them). */
export type StatusTone = "green" | "blue" | "red" | "slate" | "amber";

export interface HeldEntry {
  by: MomentColumn;
  /**
   * What every token of it gets, whatever the token's own state (lib/integrations/verify.ts):
   * `invalid_token` where its tokens were revoked with it, `forbidden` where they are only held back.
   */
  refusal: TokenRefusal;
}

interface StatusEntry {
  /** How the screens name it. */
  label: string;
  tone: StatusTone;
  /** Its tokens open the API: the signals of what will stop them (`Expiring soon`, `Rotation due`) apply. */
  live: boolean;
  /**
   * A status the integration is put in and kept in until an action takes it out: the column of its
   * row that is set meanwhile. It outranks `Expired`, and the first held status listed wins.
   */
  held?: HeldEntry;
  /** The `Status` filter: one of SPEC.md's options, or applied by a link only, shown as `label` while applied. */
  filter: "option" | { label: string };
}

/** Exactly one of these per integration (SPEC.md › The Private Integrations screen), in the screens' order. */
export const statusCatalog = {
  active: { label: "Active", tone: "green", live: true, filter: "option" },
  rotating: { label: "Rotating", tone: "blue", live: true, filter: "option" },
  expired: { label: "Expired", tone: "red", live: false, filter: "option" },
  revoked: {
    label: "Revoked",
    tone: "slate",
    live: false,
    // Reported as leaked: every token of it was revoked with it; only a new token brings it back.
    held: {
      by: "revokedAt",
      refusal: {
        code: "invalid_token",
        description:
          "This private-integration token was reported as leaked and revoked, with every token of its integration. Get a new token with “Rotate and expire this token now” under Settings > Private Integrations.",
      },
    },
    filter: { label: "Reported as leaked" },
  },
} as const satisfies Record<string, StatusEntry>;

export type IntegrationStatus = keyof typeof statusCatalog;
/** The statuses as a tuple (the management API's enum), in the catalogue's order. */
export const integrationStatuses = Object.keys(statusCatalog) as [IntegrationStatus, ...IntegrationStatus[]];

/** What a stored integration says by itself; `expired` is worked out from the clock (lib/integrations/triage.ts). */
export type StoredStatus = Exclude<IntegrationStatus, "expired">;

/** The statuses a column of the row holds the integration in. */
export type HeldStatus = {
  [S in IntegrationStatus]: (typeof statusCatalog)[S] extends { held: object } ? S : never;
}[IntegrationStatus];
export const heldStatuses = integrationStatuses.filter((s): s is HeldStatus => "held" in statusCatalog[s]);
/** The columns that hold an integration in a status, as its row has them. */
export type HoldColumn = (typeof statusCatalog)[HeldStatus]["held"]["by"];
export const holdColumns = heldStatuses.map((s) => statusCatalog[s].held.by);
export type HoldColumns = Record<HoldColumn, Date | null>;

export const isIntegrationStatus = (value: unknown): value is IntegrationStatus =>
  integrationStatuses.some((s) => s === value);
export const isHeldStatus = (status: IntegrationStatus): status is HeldStatus => "held" in statusCatalog[status];

/** How the screens name each status. */
export const statusLabels = Object.fromEntries(integrationStatuses.map((s) => [s, statusCatalog[s].label])) as Record<
  IntegrationStatus,
  string
>;

/**
 * The stored status of a row: the first held status whose column is set, else `rotating` while an
 * old token still works, else `active`. lib/integrations/rows.ts says the same in SQL.
 */
export function storedStatus(row: HoldColumns, rotating: boolean): StoredStatus {
  for (const status of heldStatuses) if (row[statusCatalog[status].held.by] !== null) return status;
  return rotating ? "rotating" : "active";
}

/** The one status shown: a held status as it is, else `expired` once its `Expires` has passed. */
export function shownStatus(stored: StoredStatus, expired: boolean): IntegrationStatus {
  return expired && !isHeldStatus(stored) ? "expired" : stored;
}

/** The management API's operation that does an action: its route, and the words of its operation in the document. */
export interface LifecycleApi {
  method: "POST" | "DELETE";
  /** Its route pattern; the route file is `app<path with [id]>/route.ts`. */
  path: string;
  /** The body that asks for this action, when one route does more than one (`/rotate`'s `mode`). */
  body?: Readonly<Record<string, string>>;
  operationId: string;
  summary: string;
  /** What it does, in the screen's words (the document adds the rule of cover). */
  description: string;
  /** What its answer is: the integration as it is after it (200), or nothing (`status: 204`). */
  answer: string;
  status?: 204;
  /** Its own refusals, besides the caller's, Labs, cover and an unknown id that every one has. */
  refusals?: { invalid_request?: string; conflict?: string };
}

interface LifecycleActionBase {
  /** Its button and menu entry on the screen (SPEC.md). */
  button: string;
  /**
   * The row menu: the statuses that offer it (the server has its own rule: ./lifecycle.ts), and
   * `danger` for an entry shown in red and listed last, after `Edit`.
   */
  menu: { allowedIn: readonly IntegrationStatus[]; danger?: true };
  /** Its confirmation's title (the name as it is, quoted here) and the tone of its `Confirm`. */
  confirm: { title: (name: string) => string; tone?: "danger" };
  /** What the audit trail records, and how `Activity` names it. */
  audit: { action: string; label: string };
  /** How the rule of cover (./no-escalation.ts) names it: what the caller `acts` on, and what to ask a `person`. */
  cover: { acts: string; person: string };
  /** The management API's operation that does it. */
  api: LifecycleApi;
}

/**
 * One lifecycle action of an integration, as every layer names it. One that reveals a new token
 * (shown once, idempotent) has its own server action; one that does not says in `done` what the
 * screen's generic server action answers (with the integration's name).
 */
export type LifecycleAction = LifecycleActionBase &
  ({ revealsToken: true } | { revealsToken: false; done: (name: string) => string });

const rotateApi = {
  method: "POST",
  path: "/private-integrations/{id}/rotate",
  operationId: "rotatePrivateIntegration",
  summary: "Rotate a private integration's token",
  description:
    'mode "now": Rotate and expire this token now (the old token stops working at once; also brings a Revoked integration back). mode "later": Rotate and expire this token later (both work for overlapDays, 7 unless given; the integration reads rotating). The answer holds the new token, shown this once.',
  answer: "Rotated; store the new token now.",
  refusals: {
    invalid_request: "Not JSON, or not one of the two modes, or an overlapDays other than 1, 3, 7, 14 or 30.",
    conflict:
      "A rotation is already in progress, the integration has expired (extend it first), it is revoked and mode is later, or the Idempotency-Key was already used by this integration for another request.",
  },
} as const satisfies LifecycleApi;

const rotationEnds = { conflict: "No rotation is in progress, or the integration is revoked." } as const;
const rotates = { acts: "rotate (and so take the token of)", person: "rotate it" } as const;

/**
 * The lifecycle actions, by the one verb every layer uses for them: the screen's confirmations,
 * menu and server actions (`…Action`), the audit trail, the rule of cover and the management API.
 * lib/integrations/catalog.test.ts proves each is wired in every layer.
 */
export const lifecycleActions = {
  rotateLater: {
    button: "Rotate and expire this token later",
    menu: { allowedIn: ["active"] },
    confirm: { title: (name) => `Rotate the token of “${name}”?` },
    audit: { action: "private_integration_rotated_later", label: "Rotated, old token expires later" },
    cover: rotates,
    api: { ...rotateApi, body: { mode: "later" } },
    revealsToken: true,
  },
  rotateNow: {
    button: "Rotate and expire this token now",
    // Reported as leaked: only a new token brings it back (the server refuses the other rotations).
    menu: { allowedIn: ["active", "revoked"] },
    confirm: { title: (name) => `Rotate the token of “${name}” and expire it now?`, tone: "danger" },
    audit: { action: "private_integration_rotated_now", label: "Rotated, old token expired at once" },
    cover: rotates,
    api: { ...rotateApi, body: { mode: "now" } },
    revealsToken: true,
  },
  expireNow: {
    button: "Expire Now",
    menu: { allowedIn: ["rotating"] },
    confirm: { title: (name) => `Expire the old token of “${name}” now?`, tone: "danger" },
    audit: { action: "private_integration_old_token_expired", label: "Old token expired now" },
    cover: { acts: "expire the old token of", person: "use Expire Now" },
    api: {
      method: "POST",
      path: "/private-integrations/{id}/expire-now",
      operationId: "expireOldPrivateIntegrationToken",
      summary: "Expire the old token now",
      description:
        "As Expire Now on the screen, during a rotation: the old token stops working at once; the new one stays.",
      answer: "The integration, active again.",
      refusals: rotationEnds,
    },
    revealsToken: false,
    done: (name) => `The old token of “${name}” no longer works.`,
  },
  cancelRotation: {
    button: "Cancel rotation",
    menu: { allowedIn: ["rotating"] },
    confirm: { title: (name) => `Cancel the rotation of “${name}”?`, tone: "danger" },
    audit: { action: "private_integration_rotation_cancelled", label: "Rotation cancelled" },
    cover: { acts: "cancel the rotation of", person: "use Cancel rotation" },
    api: {
      method: "POST",
      path: "/private-integrations/{id}/cancel-rotation",
      operationId: "cancelPrivateIntegrationRotation",
      summary: "Cancel a rotation",
      description:
        "As Cancel rotation on the screen: the new token stops working at once; the old one stays, with no end.",
      answer: "The integration, active again with its old token.",
      refusals: rotationEnds,
    },
    revealsToken: false,
    done: (name) => `Rotation of “${name}” cancelled: the new token no longer works; the old one does.`,
  },
  remove: {
    button: "Delete",
    menu: { allowedIn: integrationStatuses, danger: true },
    confirm: { title: (name) => `Delete “${name}”?`, tone: "danger" },
    audit: { action: "private_integration_deleted", label: "Deleted" },
    cover: { acts: "delete", person: "delete it" },
    api: {
      method: "DELETE",
      path: "/private-integrations/{id}",
      operationId: "deletePrivateIntegration",
      summary: "Delete a private integration",
      description: "As Delete on the screen: every token of it stops working at once.",
      answer: "Deleted.",
      status: 204,
    },
    revealsToken: false,
    done: (name) => `“${name}” was deleted; its tokens no longer work.`,
  },
} as const satisfies Record<string, LifecycleAction>;

export type LifecycleKind = keyof typeof lifecycleActions;
export const lifecycleKinds = Object.keys(lifecycleActions) as LifecycleKind[];

/** The actions that reveal no token: the screen's server action and the API's route are generic for them. */
export type PlainLifecycleKind = {
  [K in LifecycleKind]: (typeof lifecycleActions)[K]["revealsToken"] extends false ? K : never;
}[LifecycleKind];
export const plainLifecycleKinds = lifecycleKinds.filter(
  (kind): kind is PlainLifecycleKind => !lifecycleActions[kind].revealsToken,
);
