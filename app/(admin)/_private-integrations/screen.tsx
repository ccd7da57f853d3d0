import Link from "next/link";
import { notFound } from "next/navigation";
import { z } from "zod";
import { PageHeader } from "@/components/page-header";
import { AuditLogView } from "@/components/private-integrations/audit-log";
import { PrivateIntegrationsManager } from "@/components/private-integrations/manager";
import { toAuditItem, toIntegrationItem } from "@/components/private-integrations/serialize";
import { NoPermission, Notice } from "@/components/ui/notice";
import { requireActor } from "@/lib/auth/session";
import { checkIntegrationAccess, type IntegrationOwner } from "@/lib/integrations/access";
import { listAuditLog } from "@/lib/integrations/audit-log";
import { listPrivateIntegrations, listSubAccountOptions, readMaximumTokenLifetime } from "@/lib/integrations/read";
import { scopeGroups } from "@/lib/scopes";
import { integrationRequestsLast7Days } from "@/lib/usage/read";
import {
  cancelIntegrationRotation,
  confirmShown,
  createIntegration,
  deleteIntegration,
  expireOldToken,
  readIntegrationUsage,
  rotateIntegrationLater,
  rotateIntegrationNow,
  setMaximumLifetime,
  updateIntegration,
} from "./actions";

const AUDIT_LIMIT = 50;

const actions = {
  create: createIntegration,
  update: updateIntegration,
  rotateLater: rotateIntegrationLater,
  rotateNow: rotateIntegrationNow,
  expireNow: expireOldToken,
  cancelRotation: cancelIntegrationRotation,
  remove: deleteIntegration,
  readUsage: readIntegrationUsage,
  confirmShown,
};

/**
 * The Private Integrations screen of the agency (no `locationId`) or of one sub-account, shared by
 * both routes. The gate is decided here on the server before any data is read: another agency's
 * sub-account is "not found", Labs off says so, no permission says so.
 */
export async function PrivateIntegrationsScreen({
  locationId,
  searchParams,
}: {
  locationId?: string;
  /** A reminder's link opens a dialog: `?integration=<id>&action=rotate-later|rotate-now|extend`. */
  searchParams?: Record<string, string | string[] | undefined>;
}) {
  const actor = await requireActor();
  const owner: IntegrationOwner = locationId
    ? { level: "location", locationId }
    : { level: "agency", companyId: actor.companyId };
  const access = await checkIntegrationAccess(actor, owner);
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

  const now = new Date();
  const agency = access.owner.level === "agency";
  const [integrations, audit, maximumLifetimeDays, subAccounts] = await Promise.all([
    listPrivateIntegrations(actor, owner, now),
    listAuditLog(actor, owner, { limit: AUDIT_LIMIT }),
    readMaximumTokenLifetime(access.owner.companyId),
    listSubAccountOptions(access.owner),
  ]);
  // `Requests (7 days)` of every row in one query; the chart is read when a details panel opens.
  const requests = await integrationRequestsLast7Days(
    integrations.map((i) => i.id),
    now,
  );
  const auditItems = audit.map(toAuditItem);
  return (
    <PrivateIntegrationsManager
      level={access.owner.level}
      ownerName={access.owner.name}
      locationId={access.owner.locationId ?? undefined}
      items={integrations.map((i) => ({ ...toIntegrationItem(i), requests7d: requests.get(i.id) ?? 0 }))}
      groups={scopeGroups(access.owner.level)}
      subAccountOptions={agency ? subAccounts : undefined}
      maximumLifetimeDays={maximumLifetimeDays}
      // The maximum is the agency's: set on its screen only, shown read-only on a sub-account's.
      actions={agency ? { ...actions, setMaximumLifetime } : actions}
      renderedAt={now.toISOString()}
      open={dialogToOpen(searchParams)}
      initialFilter={typeof searchParams?.status === "string" ? searchParams.status : undefined}
      audit={auditItems}
    >
      <AuditLogView entries={auditItems} limit={AUDIT_LIMIT} />
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
