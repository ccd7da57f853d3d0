import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/page-header";
import { Notice } from "@/components/ui/notice";
import { isLabsFeatureEnabled } from "@/lib/accounts/labs";
import { canManageAgencyIntegrations } from "@/lib/accounts/permissions";
import { requireActor } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Private Integrations" };

// Placeholder until the Private Integrations screens land; the gates are the real ones.
export default async function AgencyPrivateIntegrationsPage() {
  const actor = await requireActor();
  if (!canManageAgencyIntegrations(actor, actor.companyId)) {
    return (
      <Notice title="You don't have permission to manage private integrations" tone="warning">
        <p>Ask an agency owner or admin to turn on “Agency private integrations” for you under Settings › Team.</p>
      </Notice>
    );
  }
  if (!(await isLabsFeatureEnabled(actor.companyId, "private_integrations"))) {
    return (
      <Notice title="Private Integrations must be enabled in Labs" tone="warning">
        <p>
          Turn on Private Integrations in{" "}
          <Link href="/settings/labs" className="text-brand-700 underline">
            Settings › Labs
          </Link>{" "}
          to create and manage them.
        </p>
      </Notice>
    );
  }
  return (
    <PageHeader title="Private Integrations" description="Static, scope-restricted tokens for your own integrations." />
  );
}
