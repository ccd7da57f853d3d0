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
