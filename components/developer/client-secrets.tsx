"use client";

import { useActionState, useEffect, useId, useState } from "react";
import { useGuardedAction } from "@/components/account/confirm-identity";
import type { FormAction } from "@/components/private-integrations/types";
import { FormMessage } from "@/components/ui/field";
import { LocalDate, RelativeTime } from "@/components/ui/relative-time";
import { buttonClass, SubmitButton } from "@/components/ui/submit-button";

interface ActionAnswer {
  message?: string;
  error?: string;
}
type Action = (prev: ActionAnswer, formData: FormData) => Promise<ActionAnswer>;

export interface ListedClientSecret {
  hint: string;
  /** ISO; null when never used. */
  lastUsedAt: string | null;
}

function Hint({ children }: { children: string }) {
  return <code className="rounded bg-slate-100 px-1 font-mono text-[13px]">…{children}</code>;
}

/** `last used 3 minutes ago` or `never used` (`Last used…`, `Never used` to open a line). */
function LastUsed({ at, renderedAt, opens = false }: { at: string | null; renderedAt: string; opens?: boolean }) {
  return at ? (
    <>
      {opens ? "Last used" : "last used"} <RelativeTime value={at} now={renderedAt} />
    </>
  ) : opens ? (
    "Never used"
  ) : (
    "never used"
  );
}

/**
 * The app's client secrets (SPEC.md › Client secret rotation): the current one and, while it still
 * works, the one the last rotation replaced, each with when it was last used; `Revoke previous
 * secret` (confirmed, and maybe `Confirm it's you`) stops the previous one at once.
 */
export function ClientSecrets({
  appId,
  current,
  previous,
  renderedAt,
  revokeAction,
}: {
  appId: string;
  current: ListedClientSecret;
  previous: (ListedClientSecret & { worksUntil: string }) | null;
  /** The moment the page was rendered (ISO), for the relative times. */
  renderedAt: string;
  revokeAction: Action;
}) {
  const id = useId();
  const [state, formAction] = useActionState(useGuardedAction(revokeAction as FormAction) as Action, {});
  const [confirming, setConfirming] = useState(false);
  // Revoked (or refused): the confirmation has done its work; the answer is said above the list.
  useEffect(() => {
    if (state.message || state.error) setConfirming(false);
  }, [state]);
  return (
    <div className="space-y-2">
      <FormMessage message={state.message} error={state.error} />
      <ul aria-label="Client secrets" className="divide-y divide-slate-100 text-sm">
        <li data-testid="current-client-secret" className="py-2">
          <p>
            <Hint>{current.hint}</Hint> <span className="font-medium text-slate-900">Current secret</span>
          </p>
          <p className="text-slate-600">
            <LastUsed at={current.lastUsedAt} renderedAt={renderedAt} opens />
          </p>
        </li>
        {previous ? (
          <li
            data-testid="previous-client-secret"
            className="flex flex-wrap items-center justify-between gap-x-3 gap-y-2 py-2"
          >
            <div id={`${id}-previous`} className="min-w-0">
              <p>
                <Hint>{previous.hint}</Hint> <span className="font-medium text-slate-900">Previous secret</span>
              </p>
              <p className="text-slate-600">
                Works until <LocalDate value={previous.worksUntil} /> ·{" "}
                <LastUsed at={previous.lastUsedAt} renderedAt={renderedAt} />
              </p>
            </div>
            {confirming ? null : (
              <button
                type="button"
                aria-describedby={`${id}-previous`}
                onClick={() => setConfirming(true)}
                className={buttonClass("secondary")}
              >
                Revoke previous secret
              </button>
            )}
          </li>
        ) : null}
      </ul>
      {confirming && previous ? (
        <form action={formAction} role="dialog" aria-labelledby={`${id}-question`} className="space-y-2">
          <input type="hidden" name="appId" value={appId} />
          <p id={`${id}-question`} className="text-sm font-medium text-slate-800">
            Revoke the previous client secret?
          </p>
          <p className="text-sm text-slate-700">
            The previous secret <Hint>{previous.hint}</Hint> <strong>stops working at once</strong> instead of on{" "}
            <LocalDate value={previous.worksUntil} />: a server still using it is refused until it has the current one{" "}
            <Hint>{current.hint}</Hint>.
          </p>
          <div className="flex flex-wrap gap-2">
            <SubmitButton variant="danger" pendingLabel="Revoking…">
              Confirm
            </SubmitButton>
            <button type="button" onClick={() => setConfirming(false)} className={buttonClass("secondary")}>
              Keep it until then
            </button>
          </div>
        </form>
      ) : null}
    </div>
  );
}
