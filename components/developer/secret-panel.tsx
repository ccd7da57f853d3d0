import type { ReactNode } from "react";
import { CopyButton } from "@/components/ui/copy-button";

interface ShownValue {
  term: string;
  value: string;
  testId: string;
  copyLabel?: string;
}

/** Secrets shown this once, with what they are for. */
function SecretPanel({
  titleId,
  title,
  note,
  values,
}: {
  titleId: string;
  title: string;
  note: ReactNode;
  values: ShownValue[];
}) {
  return (
    <section aria-labelledby={titleId} className="space-y-3 rounded-lg bg-amber-50 p-4 text-sm ring-1 ring-amber-200">
      <h2 id={titleId} className="font-semibold text-amber-900">
        {title}
      </h2>
      <p className="text-amber-900">{note}</p>
      <dl className="space-y-2">
        {values.map((shown) => (
          <div key={shown.testId}>
            <dt className="text-xs font-medium text-slate-600">{shown.term}</dt>
            <dd className="flex items-center gap-2">
              <code data-testid={shown.testId} className="break-all rounded bg-surface px-2 py-1 ring-1 ring-slate-200">
                {shown.value}
              </code>
              <CopyButton value={shown.value} label={shown.copyLabel} />
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** The client credentials, the secret shown this once (at creation and at each rotation). */
export function ClientSecretPanel({ clientId, clientSecret }: { clientId: string; clientSecret: string }) {
  return (
    <SecretPanel
      titleId="secret-title"
      title="Copy the client secret now"
      note="It is shown only this once and stored only as a hash. If you lose it, generate a new one on the app's page: the one it replaces keeps working for the time you choose, or until you revoke it."
      values={[
        { term: "Client ID", value: clientId, testId: "client-id", copyLabel: "Copy client ID" },
        { term: "Client secret", value: clientSecret, testId: "client-secret" },
      ]}
    />
  );
}

/** The app's webhook secret, shown this once (at creation and at each rotation). */
export function WebhookSecretPanel({ webhookSecret }: { webhookSecret: string }) {
  return (
    <SecretPanel
      titleId="webhook-secret-title"
      title="Copy the webhook secret now"
      note={
        <>
          It is shown only this once. Your webhook receiver verifies deliveries with it (Standard Webhooks{" "}
          <code>v1</code>). If you lose it, rotate it on the app's page.
        </>
      }
      values={[
        { term: "Webhook secret", value: webhookSecret, testId: "webhook-secret", copyLabel: "Copy webhook secret" },
      ]}
    />
  );
}
