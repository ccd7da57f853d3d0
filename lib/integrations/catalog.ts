/**
 * The integration's words, each written once: its statuses (SPEC.md's, in the order the screens
 * list them). Every layer (the triage rules, the stored view, the screen's items, the management
 * API's schema) derives its list from here, so a new status is one edit and a compile error
 * wherever it must be handled.
 */

/** Exactly one of these per integration (SPEC.md › The Private Integrations screen). */
export const integrationStatuses = ["active", "rotating", "expired", "revoked"] as const;
export type IntegrationStatus = (typeof integrationStatuses)[number];

/** What a stored integration says by itself; `expired` is worked out from the clock (lib/integrations/triage.ts). */
export type StoredStatus = Exclude<IntegrationStatus, "expired">;

/** How the screens name each status. */
export const statusLabels: Record<IntegrationStatus, string> = {
  active: "Active",
  rotating: "Rotating",
  expired: "Expired",
  revoked: "Revoked",
};

/** One lifecycle action of an integration, as every layer names it. */
export interface LifecycleAction {
  /** Its button and menu entry on the screen (SPEC.md). */
  button: string;
  /** What the audit trail records, and how `Activity` names it. */
  audit: { action: string; label: string };
  /** The management API's operation that does it (method and route pattern). */
  api: { method: "POST" | "DELETE"; path: string };
  /** Whether its answer carries a new token (shown once, idempotent). */
  revealsToken: boolean;
}

/**
 * The lifecycle actions, by the one verb every layer uses for them: the screen's confirmations and
 * server actions (`…Action`), the audit trail and the management API. lib/integrations/catalog.test.ts
 * proves each is wired in every layer.
 */
export const lifecycleActions = {
  rotateLater: {
    button: "Rotate and expire this token later",
    audit: { action: "private_integration_rotated_later", label: "Rotated, old token expires later" },
    api: { method: "POST", path: "/private-integrations/{id}/rotate" },
    revealsToken: true,
  },
  rotateNow: {
    button: "Rotate and expire this token now",
    audit: { action: "private_integration_rotated_now", label: "Rotated, old token expired at once" },
    api: { method: "POST", path: "/private-integrations/{id}/rotate" },
    revealsToken: true,
  },
  expireNow: {
    button: "Expire Now",
    audit: { action: "private_integration_old_token_expired", label: "Old token expired now" },
    api: { method: "POST", path: "/private-integrations/{id}/expire-now" },
    revealsToken: false,
  },
  cancelRotation: {
    button: "Cancel rotation",
    audit: { action: "private_integration_rotation_cancelled", label: "Rotation cancelled" },
    api: { method: "POST", path: "/private-integrations/{id}/cancel-rotation" },
    revealsToken: false,
  },
  remove: {
    button: "Delete",
    audit: { action: "private_integration_deleted", label: "Deleted" },
    api: { method: "DELETE", path: "/private-integrations/{id}" },
    revealsToken: false,
  },
} as const satisfies Record<string, LifecycleAction>;

export type LifecycleKind = keyof typeof lifecycleActions;
export const lifecycleKinds = Object.keys(lifecycleActions) as LifecycleKind[];
