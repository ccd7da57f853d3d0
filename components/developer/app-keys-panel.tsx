import type { FormAction } from "@/components/private-integrations/types";
import { Panel } from "@/components/ui/panel";
import type { Actor } from "@/lib/accounts/permissions";
import { listAppKeys } from "@/lib/apps/keys";
import { type AppKeyActions, AppKeys } from "./app-keys";

/**
 * The `Keys` section of an app's page (SPEC.md › App keys): what the keys are for, the list, and
 * the three ways to add one. Reads the keys itself, so the page only places it.
 */
export async function AppKeysPanel({
  appId,
  actor,
  actions,
}: {
  appId: string;
  actor: Actor;
  actions: Record<keyof AppKeyActions, FormAction>;
}) {
  const keys = await listAppKeys(appId, actor);
  return (
    <Panel titleId="keys-title" title="Keys" titleClassName="mb-2">
      <AppKeys
        appId={appId}
        renderedAt={new Date().toISOString()}
        actions={actions}
        keys={keys.map((key) => ({
          id: key.id,
          source: key.source,
          kid: key.kid,
          jwksUrl: key.jwksUrl,
          alg: key.alg,
          createdAt: key.createdAt.toISOString(),
          lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
          lastUsedKid: key.lastUsedKid,
        }))}
      />
    </Panel>
  );
}
