// Over 250 lines on purpose: one page read top to bottom (endpoint health, the delivery log with its
// status filter and each event's attempts, the endpoint, how to verify signatures with the public
// keys); the log's table frame is already the shared DataTable, what is left is its own rows.
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Fragment } from "react";
import { PageHeader } from "@/components/page-header";
import { CodeBlock } from "@/components/ui/code-block";
import { DataTable } from "@/components/ui/data-table";
import { NoPermission } from "@/components/ui/notice";
import { Panel, panelClass } from "@/components/ui/panel";
import { Outcome, StatusBadge, Timestamp } from "@/components/webhooks/delivery-log";
import { EndpointHealth } from "@/components/webhooks/endpoint-health";
import { RedeliverButton } from "@/components/webhooks/redeliver-button";
import { requireActor } from "@/lib/auth/session";
import { appUrl } from "@/lib/env";
import { Refusal } from "@/lib/refusal";
import { developerWebhookLog, type WebhookDeliveryLog } from "@/lib/webhooks/deliveries";
import { deliveryState, deliveryStateLabels, deliveryStates, isDeliveryState } from "@/lib/webhooks/delivery-state";
import { endpointHealthForDeveloper } from "@/lib/webhooks/endpoint-health";
import { webhookKeysJwks } from "@/lib/webhooks/signing-key";
import { enableWebhookEndpointAction, redeliverEvent, redeliverFailedAction } from "./actions";

export const metadata: Metadata = { title: "Webhooks" };

export default async function AppWebhooksPage({
  params,
  searchParams,
}: {
  params: Promise<{ appId: string }>;
  searchParams: Promise<{ status?: string | string[] }>;
}) {
  const [{ appId }, { status: asked }] = await Promise.all([params, searchParams]);
  const filter = isDeliveryState(asked) ? asked : "all";
  const actor = await requireActor();
  let log: WebhookDeliveryLog;
  try {
    log = await developerWebhookLog(actor, appId);
  } catch (error) {
    if (error instanceof Refusal && error.kind === "forbidden") {
      return (
        <NoPermission to="manage apps">
          Only the agency's owners and admins can see an app's webhooks. Ask one of them.
        </NoPermission>
      );
    }
    // Same answer for "does not exist" and "another agency's app": ids are not disclosed. A 404
    // (../not-found.tsx): a page cannot set its status, notFound() does.
    if (error instanceof Refusal && error.kind === "not_found") notFound();
    throw error;
  }
  const { app } = log;
  const all = log.events.map((event) => ({ ...event, state: deliveryState(event) }));
  const events = filter === "all" ? all : all.filter((event) => event.state === filter);
  const [jwks, health] = await Promise.all([webhookKeysJwks(), endpointHealthForDeveloper(actor, app.id)]);
  const keysUrl = `${appUrl()}/.well-known/webhook-keys`;
  const path = `/developer/apps/${encodeURIComponent(app.id)}/webhooks`;
  // The log's times read relative to this render, the exact time in the viewer's zone on hover.
  const now = new Date().toISOString();

  return (
    <>
      <PageHeader
        title={`Webhooks · ${app.name}`}
        description="Every event sent to this app's webhook URL, its attempts, and what the receiver answered. Failed attempts are retried with backoff for at least 24 hours."
        actions={
          <Link href={path} className="text-sm font-medium text-brand-700 underline-offset-2 hover:underline">
            Refresh
          </Link>
        }
      />

      <EndpointHealth
        appId={app.id}
        attempts={health.attempts}
        succeeded={health.succeeded}
        disabledAt={health.disabledAt?.toISOString() ?? null}
        enable={enableWebhookEndpointAction}
        redeliverFailed={redeliverFailedAction}
      />

      <section aria-labelledby="deliveries" className="mb-6">
        <h2 id="deliveries" className="mb-3 font-semibold">
          Delivery log
        </h2>
        <nav aria-label="Filter the delivery log by status" className="mb-3">
          <ul className="flex flex-wrap gap-2 text-sm">
            {(["all", ...deliveryStates] as const).map((value) => {
              const count = value === "all" ? all.length : all.filter((e) => e.state === value).length;
              return (
                <li key={value}>
                  <Link
                    href={value === "all" ? path : `${path}?status=${value}`}
                    aria-current={filter === value ? "page" : undefined}
                    className={`inline-block rounded-full px-3 py-1 ring-1 ring-slate-500 ${filter === value ? "bg-brand-50 font-medium text-brand-700" : "text-slate-700 hover:bg-slate-100"}`}
                  >
                    {value === "all" ? "All" : deliveryStateLabels[value]} ({count})
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
        {events.length === 0 && all.length > 0 ? (
          <p className={`${panelClass} p-6 text-sm text-slate-600`}>
            No event is {deliveryStateLabels[filter === "all" ? "pending" : filter]} among the newest {all.length}.
          </p>
        ) : events.length === 0 ? (
          <div className={`${panelClass} p-6 text-sm text-slate-600`}>
            <p className="font-medium text-slate-800">No events yet.</p>
            <p className="mt-1">
              Events appear here when someone installs or uninstalls this app. The newest {50} are shown.
            </p>
          </div>
        ) : (
          <DataTable
            label="Delivery log"
            caption={`Webhook events of ${app.name}, newest first`}
            columns={[
              { label: "Event" },
              { label: "Status" },
              { label: "Attempts" },
              { label: "Last response" },
              { label: "Next attempt" },
              { label: "Delivered" },
              { label: "Created" },
              { label: "Actions", srOnly: true },
            ]}
          >
            {events.map((event) => {
              const idElement = `webhook-id-${event.id}`;
              return (
                <tbody key={event.id} className="border-t border-slate-200" aria-label={`Event ${event.id}`}>
                  <tr className="align-top">
                    <th scope="row" className="px-3 py-2 text-left font-medium text-slate-900">
                      {event.type}
                    </th>
                    <td className="px-3 py-2">
                      <StatusBadge status={event.state} />
                      {event.state === "retrying" ? (
                        <span className="mt-1 block text-xs text-slate-600">
                          Attempt {event.attempts} failed; next <Timestamp value={event.nextAttemptAt} now={now} />
                        </span>
                      ) : null}
                    </td>
                    <td className="px-3 py-2 tabular-nums">
                      {event.attempts}
                      {event.totalAttempts !== event.attempts ? (
                        <span className="block text-xs text-slate-500">{event.totalAttempts} in all</span>
                      ) : null}
                    </td>
                    <td className="px-3 py-2">
                      <Outcome statusCode={event.lastStatus} error={event.lastError} />
                    </td>
                    <td className="px-3 py-2">
                      <Timestamp value={event.nextAttemptAt} now={now} />
                    </td>
                    <td className="px-3 py-2">
                      <Timestamp value={event.deliveredAt} now={now} />
                    </td>
                    <td className="px-3 py-2">
                      <Timestamp value={event.createdAt} now={now} />
                    </td>
                    <td className="px-3 py-2">
                      <RedeliverButton
                        action={redeliverEvent}
                        appId={app.id}
                        eventId={event.id}
                        describedById={idElement}
                      />
                    </td>
                  </tr>
                  <tr>
                    <td colSpan={8} className="px-3 pb-3">
                      <p className="text-xs text-slate-500">
                        webhook-id{" "}
                        <code id={idElement} className="break-all text-slate-700">
                          {event.id}
                        </code>
                      </p>
                      <details className="mt-1 text-xs">
                        <summary className="cursor-pointer text-slate-600 hover:text-slate-900">
                          Attempt history ({event.totalAttempts})
                        </summary>
                        {event.recentAttempts.length === 0 ? (
                          <p className="mt-2 text-slate-500">Not attempted yet.</p>
                        ) : (
                          <table className="mt-2 min-w-full text-xs">
                            <caption className="sr-only">Attempts for event {event.id}, newest first</caption>
                            <thead className="text-left text-slate-500">
                              <tr>
                                <th scope="col" className="py-1 pr-4">
                                  Attempt
                                </th>
                                <th scope="col" className="py-1 pr-4">
                                  At
                                </th>
                                <th scope="col" className="py-1 pr-4">
                                  Response
                                </th>
                                <th scope="col" className="py-1 pr-4">
                                  Took
                                </th>
                              </tr>
                            </thead>
                            <tbody>
                              {event.recentAttempts.map((a) => (
                                <Fragment key={a.id}>
                                  <tr>
                                    <td className="py-1 pr-4 tabular-nums">{a.attempt}</td>
                                    <td className="py-1 pr-4">
                                      <Timestamp value={a.attemptedAt} now={now} />
                                    </td>
                                    <td className="py-1 pr-4">
                                      <Outcome statusCode={a.statusCode} error={a.error} />
                                    </td>
                                    <td className="py-1 pr-4 tabular-nums">{a.durationMs} ms</td>
                                  </tr>
                                  {a.responseBody === null ? null : (
                                    <tr>
                                      <td colSpan={4} className="pb-2">
                                        <p className="text-slate-500">
                                          Response body of attempt {a.attempt} (first 1 KiB)
                                        </p>
                                        {a.responseBody === "" ? (
                                          <p className="text-slate-500">(empty)</p>
                                        ) : (
                                          // Wraps anywhere: a long line from the receiver never widens the page.
                                          <CodeBlock data-testid="webhook-response-body" tone="light" className="mt-1">
                                            {a.responseBody}
                                          </CodeBlock>
                                        )}
                                      </td>
                                    </tr>
                                  )}
                                </Fragment>
                              ))}
                            </tbody>
                          </table>
                        )}
                        <p className="mt-2 font-medium text-slate-700">Request body</p>
                        <CodeBlock tone="light" className="mt-1">
                          {event.body}
                        </CodeBlock>
                        {event.totalAttempts > event.recentAttempts.length ? (
                          <p className="mt-1 text-slate-500">
                            Showing the newest {event.recentAttempts.length} of {event.totalAttempts} attempts.
                          </p>
                        ) : null}
                      </details>
                    </td>
                  </tr>
                </tbody>
              );
            })}
          </DataTable>
        )}
      </section>
      <Panel titleId="endpoint" title="Endpoint" className="mb-6 p-5" titleClassName="">
        <dl className="mt-3 text-sm">
          <dt className="font-medium text-slate-700">Webhook URL</dt>
          <dd className="mt-1 break-all font-mono text-slate-900">
            {app.webhookUrl ?? (
              <span className="font-sans text-slate-500">None yet. Events wait until one is set.</span>
            )}
          </dd>
        </dl>
      </Panel>

      <Panel titleId="verify" title="Verifying signatures" className="mb-6 p-5" titleClassName="">
        <div className="mt-2 space-y-2 text-sm break-words text-slate-700">
          <p>
            Webhooks are signed per the{" "}
            <a href="https://www.standardwebhooks.com/" className="text-brand-700 underline" rel="noreferrer">
              Standard Webhooks
            </a>{" "}
            specification. Each request carries <code>webhook-id</code>, <code>webhook-timestamp</code> (Unix seconds)
            and <code>webhook-signature: v1,&lt;HMAC&gt; v1a,&lt;Ed25519&gt;</code> over{" "}
            <code>&lt;webhook-id&gt;.&lt;webhook-timestamp&gt;.&lt;raw body&gt;</code>: <code>v1</code> under the app's
            webhook secret (what the <code>standardwebhooks</code> library checks), <code>v1a</code> under one of the
            public keys below. <code>x-ghl-signature</code> is the Ed25519 signature of the raw body alone, for the
            platform's SDK. The secret, the PEM and three lines of code are on{" "}
            <Link href={`/developer/apps/${encodeURIComponent(app.id)}`} className="text-brand-700 underline">
              the app's page
            </Link>
            .
          </p>
          <p>
            Verify over the exact bytes of the body, reject timestamps more than a few minutes from your clock, and use{" "}
            <code>webhook-id</code> to ignore an event you have already handled (delivery is at least once). The keys
            are also published at{" "}
            <a href="/.well-known/webhook-keys" className="break-all text-brand-700 underline">
              {keysUrl}
            </a>
            ; fetch them from there so a new key is picked up.
          </p>
        </div>
        <h3 className="mt-4 text-sm font-semibold text-slate-700">Public signing keys (Ed25519)</h3>
        <ul className="mt-2 space-y-2">
          {jwks.keys.map((key) => (
            <li key={key.kid}>
              <p className="text-xs text-slate-500">
                Key id <code className="break-all">{key.kid}</code>
              </p>
              <CodeBlock className="mt-1">{JSON.stringify(key, null, 2)}</CodeBlock>
            </li>
          ))}
        </ul>
      </Panel>
    </>
  );
}
