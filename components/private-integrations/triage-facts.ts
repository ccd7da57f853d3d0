import type { TriageFacts } from "@/lib/integrations/triage";
import type { IntegrationItem } from "./types";

/** What the triage rules (lib/integrations/triage.ts) read of a row of the list. */
export function triageFacts(item: IntegrationItem): TriageFacts {
  return {
    name: item.name,
    description: item.description,
    scopes: item.scopes,
    createdAt: item.createdAt,
    lastUsedAt: item.lastUsedAt,
    tokenCreatedAt: item.token.createdAt,
    tokenHint: item.token.hint,
    expiresAt: item.expiresAt,
    rotating: item.status === "rotating",
    revokedAt: item.revoked?.at ?? null,
  };
}
