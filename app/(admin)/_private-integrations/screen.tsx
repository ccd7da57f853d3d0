import Link from "next/link";
import { notFound } from "next/navigation";
import { z } from "zod";
import { PageHeader } from "@/components/page-header";
import { AuditLogView } from "@/components/private-integrations/activity";
import { PrivateIntegrationsManager } from "@/components/private-integrations/manager";
import { toAuditItem, toIntegrationItem } from "@/components/private-integrations/serialize";
import type { FormAction, IntegrationActions } from "@/components/private-integrations/types";
import { NoPermission, Notice } from "@/components/ui/notice";
import { requireActor } from "@/lib/auth/session";
import type { IntegrationOwner } from "@/lib/integrations/access";
import { type LifecycleKind, lifecycleKinds } from "@/lib/integrations/catalog";
import { listQueryOf } from "@/lib/integrations/list-page";
import { scopeGroups } from "@/lib/scopes";
import * as screenActions from "./actions";
import { readActivityAction } from "./activity-actions";
import { readIntegrationsScreen } from "./screen-read";

/** The screen's server actions: each lifecycle action of the catalogue is `<verb>Action` (./actions.ts). */
const actions: IntegrationActions = {
  create: screenActions.createIntegrationAction,
  update: screenActions.updateIntegrationAction,
  ...(Object.fromEntries(
    // biome-ignore lint/performance/noDynamicNamespaceImportAccess: a server module, not bundled for the browser; the catalogue's verbs name the actions, and a missing one does not compile.
    lifecycleKinds.map((kind) => [kind, screenActions[`${kind}Action`]]),
  ) as Record<LifecycleKind, FormAction>),
  readUsage: screenActions.readUsageAction,
  confirmShown: screenActions.confirmShownAction,
  readActivity: readActivityAction,
};

/**
 * The Private Integrations screen of the agency (no `locationId`) or of one sub-account, shared by
 * both routes. Everything is read in one round of queries (./screen-read.ts), bounded
 * to the person's own agency; the gate decides before anything is shown: another agency's
 * sub-account is "not found", Labs off says so, no permission says so.
 */
export async function PrivateIntegrationsScreen({
  locationId,
  searchParams,
}: {
  locationId?: string;
  /**
   * The list's page (`?q=&status=&sort=&page=`, lib/integrations/list-page.ts), and a reminder's
   * link opens a dialog: `?integration=<id>&action=rotate-later|rotate-now|extend`.
   */
  searchParams?: Record<string, string | string[] | undefined>;
}) {
  const actor = await requireActor();
  const owner: IntegrationOwner = locationId
    ? { level: "location", locationId }
    : { level: "agency", companyId: actor.companyId };
  const now = new Date();
  const open = dialogToOpen(searchParams);
  // Only the page is read and sent: search, filter and order apply to every integration in the database.
  const query = listQueryOf(searchParams);
  const access = await readIntegrationsScreen(actor, owner, now, query, open?.integrationId);
  if (!access.ok) {
    // A 404 (each route's not-found.tsx: ./not-found-screen.tsx): a page cannot set its status, notFound() does.
    if (access.reason === "not_found") notFound();
    // The same page heading as the screen itself, so the page has its h1 whatever the gate says.
    return (
      <>
        <PageHeader title="Private Integrations" />
        <AccessNotice reason={access.reason} message={access.message} />
      </>
    );
  }

  const { owner: resolved, list, requests, audit, maximumTokenLifetimeDays, subAccounts } = access.screen;
  const agency = resolved.level === "agency";
  // The newest 20 entries of Activity and whether older ones exist: `Show more` reads the rest.
  const auditItems = { entries: audit.entries.map(toAuditItem), more: audit.more };
  return (
    <PrivateIntegrationsManager
      level={resolved.level}
      ownerName={resolved.name}
      locationId={resolved.locationId ?? undefined}
      list={{
        ...list,
        rows: list.rows.map((i) => ({ ...toIntegrationItem(i), requests7d: requests.get(i.id) ?? 0 })),
        query: { ...query, page: list.page },
      }}
      groups={scopeGroups(resolved.level)}
      subAccountOptions={agency ? subAccounts : undefined}
      maximumLifetimeDays={maximumTokenLifetimeDays}
      // The maximum is the agency's: set on its screen only, shown read-only on a sub-account's.
      actions={agency ? { ...actions, setMaximumLifetime: screenActions.setMaximumLifetimeAction } : actions}
      renderedAt={now.toISOString()}
      open={open}
      audit={auditItems.entries}
      auditMore={auditItems.more}
    >
      <AuditLogView
        first={auditItems}
        now={now.toISOString()}
        read={readActivityAction}
        fields={locationId ? { locationId } : {}}
      />
    </PrivateIntegrationsManager>
  );
}

const openSchema = z.object({
  integration: z.string().min(1).max(100),
  action: z.enum(["rotate-later", "rotate-now", "extend"]),
});

function dialogToOpen(searchParams: Record<string, string | string[] | undefined> | undefined) {
  const parsed = openSchema.safeParse(searchParams ?? {});
  return parsed.success ? { integrationId: parsed.data.integration, action: parsed.data.action } : undefined;
}

function AccessNotice({ reason, message }: { reason: "labs_off" | "forbidden"; message: string }) {
  if (reason === "labs_off") {
    return (
      <Notice title="Private Integrations must be enabled in Labs" tone="warning">
        <p>
          The feature must be enabled in{" "}
          <Link href="/settings/labs" className="font-medium text-brand-700 underline">
            Settings › Labs
          </Link>{" "}
          before anyone can create or manage private integrations. An agency owner or admin can turn it on there.
        </p>
        <p>Tokens already issued keep working.</p>
      </Notice>
    );
  }
  return <NoPermission to="manage private integrations">{message}</NoPermission>;
}
