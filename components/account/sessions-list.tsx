"use client";

import { useActionState } from "react";
import type { FormAction } from "@/components/private-integrations/types";
import { FormMessage } from "@/components/ui/field";
import { RelativeTime } from "@/components/ui/relative-time";
import { buttonClass } from "@/components/ui/submit-button";

export interface SessionItem {
  id: string;
  browser: string;
  system: string;
  address: string;
  signedInAt: string;
  lastActiveAt: string;
  current: boolean;
}

/** `Where you're signed in`: each session, the current one marked `This device`, each other with `Sign out`. */
export function SessionsList({
  sessions,
  renderedAt,
  signOut,
}: {
  sessions: SessionItem[];
  renderedAt: string;
  signOut: FormAction;
}) {
  const [state, formAction, pending] = useActionState(signOut, {});
  const others = sessions.filter((s) => !s.current).length;
  return (
    <div className="space-y-4">
      <FormMessage error={state.error} message={state.message} />
      <ul className="divide-y divide-slate-100">
        {sessions.map((s) => (
          <li key={s.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
            <div id={`session-${s.id}`} className="min-w-0 text-sm">
              <p className="font-medium text-slate-900">
                {s.browser} on {s.system}
                {s.current ? (
                  <span className="ml-2 rounded bg-emerald-100 px-1.5 py-0.5 text-xs font-medium text-emerald-900">
                    This device
                  </span>
                ) : null}
              </p>
              <p className="text-slate-600">
                {s.address} · signed in <RelativeTime value={s.signedInAt} now={renderedAt} /> · last active{" "}
                <RelativeTime value={s.lastActiveAt} now={renderedAt} />
              </p>
            </div>
            {s.current ? null : (
              <form action={formAction}>
                <input type="hidden" name="sessionId" value={s.id} />
                <button
                  type="submit"
                  aria-describedby={`session-${s.id}`}
                  disabled={pending}
                  className={buttonClass("secondary")}
                >
                  Sign out
                </button>
              </form>
            )}
          </li>
        ))}
      </ul>
      {others > 0 ? (
        <form action={formAction}>
          <button type="submit" disabled={pending} className={buttonClass("secondary")}>
            Sign out everywhere else
          </button>
        </form>
      ) : (
        <p className="text-sm text-slate-600">You are signed in nowhere else.</p>
      )}
    </div>
  );
}
