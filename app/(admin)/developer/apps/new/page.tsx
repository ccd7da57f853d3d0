import type { Metadata } from "next";
import { AppForm } from "@/components/developer/app-form";
import { PageHeader } from "@/components/page-header";
import { NoPermission } from "@/components/ui/notice";
import { panelClass } from "@/components/ui/panel";
import { canManageApps } from "@/lib/apps/registry";
import { requireActor } from "@/lib/auth/session";
import { scopeGroups } from "@/lib/scopes";
import { createAppAction } from "../actions";

export const metadata: Metadata = { title: "Create app" };

export default async function NewAppPage() {
  const actor = await requireActor();
  if (!canManageApps(actor, actor.companyId)) {
    return (
      <NoPermission to="manage apps">Only the agency's owners and admins can create marketplace apps.</NoPermission>
    );
  }
  return (
    <>
      <PageHeader title="Create app" description="The client secret is shown once, right after you create the app." />
      <div className={`${panelClass} p-6`}>
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
