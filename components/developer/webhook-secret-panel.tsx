import { CopyButton } from "@/components/ui/copy-button";

/** The app's webhook secret, shown this once (at creation and at each rotation). */
export function WebhookSecretPanel({ webhookSecret }: { webhookSecret: string }) {
  return (
    <section
      aria-labelledby="webhook-secret-title"
      className="space-y-3 rounded-lg bg-amber-50 p-4 text-sm ring-1 ring-amber-200"
    >
      <h2 id="webhook-secret-title" className="font-semibold text-amber-900">
        Copy the webhook secret now
      </h2>
      <p className="text-amber-900">
        It is shown only this once. Your webhook receiver verifies deliveries with it (Standard Webhooks <code>v1</code>
        ). If you lose it, rotate it on the app's page.
      </p>
      <div>
        <p className="text-xs font-medium text-slate-600">Webhook secret</p>
        <p className="flex items-center gap-2">
          <code data-testid="webhook-secret" className="break-all rounded bg-white px-2 py-1 ring-1 ring-slate-200">
            {webhookSecret}
          </code>
          <CopyButton value={webhookSecret} label="Copy webhook secret" />
        </p>
      </div>
    </section>
  );
}
