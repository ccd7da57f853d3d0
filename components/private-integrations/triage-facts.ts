import type { TriageFacts } from "@/lib/integrations/triage";
import type { IntegrationItem } from "./types";

const date = (iso: string | null) => (iso === null ? null : new Date(iso));

/**
 * What the triage rules (lib/integrations/triage.ts) read of a row of the list. Dates are parsed
 * once here: the rules read each of them several times per row, for hundreds of rows.
 */
export function triageFacts(item: IntegrationItem): TriageFacts {
  return {
    name: item.name,
    description: item.description,
    scopes: item.scopes,
    createdAt: new Date(item.createdAt),
    lastUsedAt: date(item.lastUsedAt),
    tokenCreatedAt: new Date(item.token.createdAt),
    tokenHint: item.token.hint,
    expiresAt: date(item.expiresAt),
    status: item.status,
  };
}
