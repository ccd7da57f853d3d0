import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { forgetShownAnswerAction } from "@/app/(admin)/settings/account/actions";
import { AppVersionsSection } from "@/components/app-updates/app-versions";
import { AppForm } from "@/components/developer/app-form";
import { AppKeysPanel } from "@/components/developer/app-keys-panel";
import { ClientSecrets } from "@/components/developer/client-secrets";
import { ReplaceSecret } from "@/components/developer/replace-secret";
import { PageHeader } from "@/components/page-header";
import { CodeBlock } from "@/components/ui/code-block";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/panel";
import { LocalDate } from "@/components/ui/relative-time";
import { UsageChart } from "@/components/usage/usage-chart";
import type { AppView } from "@/lib/apps/app-view";
import { getDeveloperApp } from "@/lib/apps/registry";
import { clientSecretStatus } from "@/lib/apps/secrets";
import { listAppVersions } from "@/lib/apps/versions";
import { requireActor } from "@/lib/auth/session";
import { installUrl } from "@/lib/oauth/marketplace";
import { Refusal } from "@/lib/refusal";
import { scopeGroups } from "@/lib/scopes";
import { appUsageDays } from "@/lib/usage/read";
import { publicKeyPem, webhookSigningKeys } from "@/lib/webhooks/signing-key";
import { webhookSecretStatus } from "@/lib/webhooks/webhook-secret";
import {
  addAppKeyAction,
  generateAppKeyPairAction,
  removeAppKeyAction,
  revokePreviousClientSecretAction,
  rotateClientSecretAction,
  rotateWebhookSecretAction,
  setJwksUrlAction,
  updateAppAction,
} from "../actions";

export const metadata: Metadata = { title: "App" };

// Three lines, for an app developer's receiver (Node): standardwebhooks, then a plain Ed25519 check.
const verifyHowto = [
  'const event = new Webhook(webhookSecret).verify(rawBody, req.headers); // npm "standardwebhooks": v1, throws if forged or stale',
  'const ok = crypto.verify(null, rawBody, crypto.createPublicKey(publicKeyPem), Buffer.from(req.headers["x-ghl-signature"], "base64"));',
  "// rawBody: the exact bytes received (e.g. express.raw()), never re-serialized JSON; delivery is at least once: dedupe on webhook-id.",
].join("\n");

export default async function AppPage({ params }: { params: Promise<{ appId: string }> }) {
  const actor = await requireActor();
  const { appId } = await params;
  let app: AppView;
  try {
    app = await getDeveloperApp(appId, actor);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    // A 404 (./not-found.tsx): a page cannot set its status, notFound() does.
    if (error.kind !== "forbidden") notFound();
    return (
      <Notice title="You don't have permission to manage apps" tone="warning">
        <p>{error.message}</p>
      </Notice>
    );
  }
  const now = new Date();
  const [secret, clientSecrets, keys, usage, versions] = await Promise.all([
    webhookSecretStatus(app.id),
    clientSecretStatus(app.id, now),
    webhookSigningKeys(),
    appUsageDays(app.id, 30, now),
    listAppVersions(app.id, actor),
  ]);
  return (
    <>
      <PageHeader title={app.name} description={`Version ${app.versionId}`} />
      <div className="space-y-6">
        <Panel titleId="credentials-title" title="Client credentials">
          <dl className="mb-4 grid gap-2 text-sm sm:grid-cols-[10rem_1fr]">
            <dt className="text-slate-500">Client ID</dt>
            <dd>
              <code data-testid="client-id">{app.clientId}</code>
            </dd>
            <dt className="text-slate-500">Install link</dt>
            <dd className="break-all">
              <a href={installUrl(app)} className="text-brand-700 underline">
                {installUrl(app)}
              </a>
            </dd>
          </dl>
          <h3 className="text-sm font-semibold text-slate-700">Client secrets</h3>
          <p className="mt-1 text-sm text-slate-600">Shown only when generated; stored as a hash.</p>
          <div className="mt-1">
            <ClientSecrets
              appId={app.id}
              current={{
                hint: clientSecrets.current.hint,
                lastUsedAt: clientSecrets.current.lastUsedAt?.toISOString() ?? null,
              }}
              previous={
                clientSecrets.previous
                  ? {
                      hint: clientSecrets.previous.hint,
                      worksUntil: clientSecrets.previous.worksUntil.toISOString(),
                      lastUsedAt: clientSecrets.previous.lastUsedAt?.toISOString() ?? null,
                    }
                  : null
              }
              renderedAt={now.toISOString()}
              revokeAction={revokePreviousClientSecretAction}
            />
          </div>
          <div className="mt-3">
            <ReplaceSecret
              kind="client"
              action={rotateClientSecretAction}
              forgetShown={forgetShownAnswerAction}
              appId={app.id}
              clientId={app.clientId}
            />
          </div>
        </Panel>
        <AppKeysPanel
          appId={app.id}
          actor={actor}
          actions={{
            add: addAppKeyAction,
            generate: generateAppKeyPairAction,
            setJwksUrl: setJwksUrlAction,
            remove: removeAppKeyAction,
            forgetShown: forgetShownAnswerAction,
          }}
        />
        <Panel titleId="usage-title" title="API usage">
          <UsageChart id="app-usage" days={usage} title="Requests of all installations, last 30 days (UTC)" />
        </Panel>
        <Panel titleId="webhooks-title" title="Webhooks" titleClassName="mb-2">
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
          <h3 className="mt-4 text-sm font-semibold text-slate-700">Webhook secret</h3>
          <p className="mt-1 text-sm text-slate-600">
            {secret.hint ? (
              <>
                <code>whsec_…{secret.hint}</code> (shown only when created or rotated; it signs{" "}
                <code>webhook-signature</code> <code>v1</code>).
              </>
            ) : (
              "This app was made before webhook secrets were shown. Rotate to get one."
            )}
            {secret.previousSignsUntil ? (
              <>
                {" "}
                The previous secret also signs until <LocalDate value={secret.previousSignsUntil} />.
              </>
            ) : null}
          </p>
          <div className="mt-2">
            <ReplaceSecret
              kind="webhook"
              action={rotateWebhookSecretAction}
              forgetShown={forgetShownAnswerAction}
              appId={app.id}
            />
          </div>
          <h3 className="mt-4 text-sm font-semibold text-slate-700">Platform public key (Ed25519, PEM)</h3>
          <p className="mt-1 text-sm text-slate-600">
            Verifies <code>x-ghl-signature</code>; also at{" "}
            <a href="/.well-known/webhook-public-key.pem" className="text-brand-700 underline">
              /.well-known/webhook-public-key.pem
            </a>{" "}
            and, as a JWKS, at{" "}
            <a href="/.well-known/webhook-keys" className="text-brand-700 underline">
              /.well-known/webhook-keys
            </a>
            .
          </p>
          <CodeBlock data-testid="webhook-public-key-pem" className="mt-2">
            {publicKeyPem(keys.platform)}
          </CodeBlock>
          {keys.next ? (
            <>
              <p className="mt-2 text-sm text-slate-600" data-testid="webhook-next-key-notice">
                The platform key was rotated. From <LocalDate value={keys.next.takesOverAt} /> on,{" "}
                <code>x-ghl-signature</code> is signed with the key below (and the PEM URL serves it); until then both
                keys sign <code>webhook-signature</code> <code>v1a</code>. Pin the new PEM at that moment, or fetch the
                PEM URL again when a signature stops verifying.
              </p>
              <CodeBlock data-testid="webhook-next-public-key-pem" className="mt-2">
                {publicKeyPem(keys.next.key)}
              </CodeBlock>
            </>
          ) : null}
          <h3 className="mt-4 text-sm font-semibold text-slate-700">Verifying a delivery</h3>
          <CodeBlock data-testid="verify-howto" className="mt-2">
            {verifyHowto}
          </CodeBlock>
        </Panel>
        <Panel titleId="settings-title" title="Settings" titleClassName="mb-4">
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
        </Panel>
        <AppVersionsSection data={versions} />
      </div>
    </>
  );
}
