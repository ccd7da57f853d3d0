"use client";

import { useActionState } from "react";
import { ActionMessage } from "@/components/ui/action-message";
import { Panel } from "@/components/ui/panel";
import { LocalDate } from "@/components/ui/relative-time";
import { SubmitButton } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";

type Action = (prev: ActionState, formData: FormData) => Promise<ActionState>;

function Message({ state }: { state: ActionState }) {
  return <ActionMessage error={state.error ?? Object.values(state.fieldErrors ?? {})[0]} message={state.message} />;
}

/**
 * The webhook endpoint's health on the app's webhooks page: the last 24 hours' success share,
 * `Webhook endpoint disabled` with `Enable`, and `Redeliver failed` since a chosen time (the
 * viewer's local time, sent to the server in UTC).
 */
export function EndpointHealth({
  appId,
  attempts,
  succeeded,
  disabledAt,
  enable,
  redeliverFailed,
}: {
  appId: string;
  attempts: number;
  succeeded: number;
  /** ISO time, or null when the endpoint is on. */
  disabledAt: string | null;
  enable: Action;
  redeliverFailed: Action;
}) {
  const [enabled, enableAction] = useActionState(enable, {});
  const [redelivered, redeliverAction] = useActionState(redeliverFailed, {});
  const share = attempts === 0 ? null : Math.round((succeeded / attempts) * 100);
  return (
    <Panel titleId="endpoint-health" title="Endpoint health" className="mb-6 p-5" titleClassName="">
      <p className="mt-2 text-sm text-slate-700" data-testid="success-share">
        {share === null
          ? "No delivery attempts in the last 24 hours."
          : `${share}% of delivery attempts succeeded in the last 24 hours (${succeeded} of ${attempts}).`}
      </p>
      {disabledAt && !enabled.ok ? (
        <div role="alert" className="mt-3 rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200">
          <p className="font-semibold">Webhook endpoint disabled</p>
          <p>
            It answered nothing but failures for days, so no attempts are made since <LocalDate value={disabledAt} />.
            Events are still written and listed by <code>GET /webhooks/events</code>. Fix the receiver, then enable it:
            everything pending is delivered.
          </p>
          <form action={enableAction} className="mt-2">
            <input type="hidden" name="appId" value={appId} />
            <SubmitButton pendingLabel="Enabling…">Enable</SubmitButton>
          </form>
        </div>
      ) : null}
      <Message state={enabled} />
      <form
        action={(form) => {
          // The field holds the viewer's local time; the server reads UTC.
          const since = new Date(String(form.get("since") ?? ""));
          if (!Number.isNaN(since.getTime())) form.set("since", since.toISOString().slice(0, 19));
          redeliverAction(form);
        }}
        className="mt-4 flex flex-wrap items-end gap-2"
      >
        <input type="hidden" name="appId" value={appId} />
        <label className="text-sm">
          <span className="block text-slate-700">Failed since</span>
          <input
            type="datetime-local"
            name="since"
            required
            className="mt-1 rounded-md border border-slate-500 px-2 py-1 text-sm"
          />
        </label>
        <SubmitButton variant="secondary" pendingLabel="Queueing…">
          Redeliver failed
        </SubmitButton>
      </form>
      <Message state={redelivered} />
    </Panel>
  );
}
