import { CopyButton } from "@/components/ui/copy-button";

/** The client credentials, the secret shown this once. */
export function SecretPanel({ clientId, clientSecret }: { clientId: string; clientSecret: string }) {
  return (
    <section
      aria-labelledby="secret-title"
      className="space-y-3 rounded-lg bg-amber-50 p-4 text-sm ring-1 ring-amber-200"
    >
      <h2 id="secret-title" className="font-semibold text-amber-900">
        Copy the client secret now
      </h2>
      <p className="text-amber-900">
        It is shown only this once and stored only as a hash. If you lose it, regenerate it (the old one stops working).
      </p>
      <dl className="space-y-2">
        <div>
          <dt className="text-xs font-medium text-slate-600">Client ID</dt>
          <dd className="flex items-center gap-2">
            <code data-testid="client-id" className="break-all rounded bg-white px-2 py-1 ring-1 ring-slate-200">
              {clientId}
            </code>
            <CopyButton value={clientId} label="Copy client ID" />
          </dd>
        </div>
        <div>
          <dt className="text-xs font-medium text-slate-600">Client secret</dt>
          <dd className="flex items-center gap-2">
            <code data-testid="client-secret" className="break-all rounded bg-white px-2 py-1 ring-1 ring-slate-200">
              {clientSecret}
            </code>
            <CopyButton value={clientSecret} />
          </dd>
        </div>
      </dl>
    </section>
  );
}
