import type { Metadata } from "next";
import { AppForm } from "@/components/developer/app-form";
import { PageHeader } from "@/components/page-header";
import { Notice } from "@/components/ui/notice";
import { canManageApps } from "@/lib/apps/registry";
import { requireActor } from "@/lib/auth/session";
import { scopeGroups } from "@/lib/scopes";
import { createAppAction } from "../actions";

export const metadata: Metadata = { title: "Create app" };

export default async function NewAppPage() {
  const actor = await requireActor();
  if (!canManageApps(actor, actor.companyId)) {
    return (
      <Notice title="You don't have permission to manage apps" tone="warning">
        <p>Only the agency's owners and admins can create marketplace apps.</p>
      </Notice>
    );
  }
  return (
    <>
      <PageHeader title="Create app" description="The client secret is shown once, right after you create the app." />
      <div className="rounded-lg bg-surface p-6 shadow-sm ring-1 ring-slate-200">
        <AppForm
          action={createAppAction}
          submitLabel="Create"
          scopeGroups={scopeGroups()}
          values={{
            name: "",
            description: "",
            redirectUris: [],
            scopes: [],
            installSetting: "everyone",
            webhookUrl: "",
          }}
        />
      </div>
    </>
  );
}
