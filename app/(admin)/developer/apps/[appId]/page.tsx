import type { Metadata } from "next";
import { AppForm } from "@/components/developer/app-form";
import { RegenerateSecret } from "@/components/developer/regenerate-secret";
import { PageHeader } from "@/components/page-header";
import { Notice } from "@/components/ui/notice";
import { requireActor } from "@/lib/auth/session";
import { DomainError } from "@/lib/errors";
import { type AppView, getDeveloperApp } from "@/lib/oauth/apps";
import { installUrl } from "@/lib/oauth/marketplace";
import { scopeGroups } from "@/lib/scopes";
import { regenerateSecretAction, updateAppAction } from "../actions";

export const metadata: Metadata = { title: "App" };

export default async function AppPage({ params }: { params: Promise<{ appId: string }> }) {
  const actor = await requireActor();
  const { appId } = await params;
  let app: AppView;
  try {
    app = await getDeveloperApp(appId, actor);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return (
      <Notice
        title={error.kind === "forbidden" ? "You don't have permission to manage apps" : "App not found"}
        tone="warning"
      >
        <p>{error.message}</p>
      </Notice>
    );
  }
  return (
    <>
      <PageHeader title={app.name} description={`Version ${app.versionId}`} />
      <div className="space-y-6">
        <section
          aria-labelledby="credentials-title"
          className="rounded-lg bg-white p-6 shadow-sm ring-1 ring-slate-200"
        >
          <h2 id="credentials-title" className="mb-3 font-semibold">
            Client credentials
          </h2>
          <dl className="mb-4 grid gap-2 text-sm sm:grid-cols-[10rem_1fr]">
            <dt className="text-slate-500">Client ID</dt>
            <dd>
              <code data-testid="client-id">{app.clientId}</code>
            </dd>
            <dt className="text-slate-500">Client secret</dt>
            <dd>
              <code>…{app.clientSecretHint}</code> <span className="text-slate-500">(shown only when created)</span>
            </dd>
            <dt className="text-slate-500">Install link</dt>
            <dd className="break-all">
              <a href={installUrl(app)} className="text-brand-700 underline">
                {installUrl(app)}
              </a>
            </dd>
          </dl>
          <RegenerateSecret action={regenerateSecretAction} appId={app.id} clientId={app.clientId} />
        </section>
        <section aria-labelledby="webhooks-title" className="rounded-lg bg-white p-6 shadow-sm ring-1 ring-slate-200">
          <h2 id="webhooks-title" className="mb-2 font-semibold">
            Webhooks
          </h2>
          <p className="text-sm text-slate-600">
            {app.webhookUrl ? (
              <>
                Events go to <code>{app.webhookUrl}</code>.{" "}
              </>
            ) : (
              "No webhook URL: no events are sent. "
            )}
            <a href={`/developer/apps/${app.id}/webhooks`} className="text-brand-700 underline">
              Webhook delivery log
            </a>
          </p>
        </section>
        <section aria-labelledby="settings-title" className="rounded-lg bg-white p-6 shadow-sm ring-1 ring-slate-200">
          <h2 id="settings-title" className="mb-4 font-semibold">
            Settings
          </h2>
          <AppForm
            action={updateAppAction}
            submitLabel="Save"
            scopeGroups={scopeGroups()}
            values={{
              appId: app.id,
              name: app.name,
              description: app.description,
              redirectUris: app.redirectUris,
              scopes: app.scopes,
              installSetting: app.installSetting,
              webhookUrl: app.webhookUrl ?? "",
            }}
          />
        </section>
      </div>
    </>
  );
}
