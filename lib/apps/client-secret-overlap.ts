/**
 * How long the client secret a rotation replaces keeps working beside the new one (SPEC.md ›
 * Client secret rotation): the choices of `Generate new client secret` and `app:rotate-secret
 * --overlap`. No server code here: the app page's client components read it too.
 */
export const CLIENT_SECRET_OVERLAPS = { "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000 } as const;
export type ClientSecretOverlap = keyof typeof CLIENT_SECRET_OVERLAPS;
export const DEFAULT_CLIENT_SECRET_OVERLAP: ClientSecretOverlap = "24h";
export const clientSecretOverlaps = Object.keys(CLIENT_SECRET_OVERLAPS) as [
  ClientSecretOverlap,
  ...ClientSecretOverlap[],
];

/** How the screens name each choice. */
export const clientSecretOverlapLabels: Record<ClientSecretOverlap, string> = {
  "1h": "1 hour",
  "24h": "24 hours",
  "7d": "7 days",
};

export function isClientSecretOverlap(value: unknown): value is ClientSecretOverlap {
  return typeof value === "string" && Object.hasOwn(CLIENT_SECRET_OVERLAPS, value);
}
