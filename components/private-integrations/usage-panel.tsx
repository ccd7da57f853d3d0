"use client";

import { useCallback, useEffect, useState } from "react";
import { buttonClass } from "@/components/ui/button-styles";
import { RelativeTime } from "@/components/ui/relative-time";
import { UsageChart } from "@/components/usage/usage-chart";
import type { FormAction, IntegrationUsage, UsageTotalsItem } from "./types";

type Load = { state: "loading" } | { state: "failed"; message: string } | { state: "loaded"; usage: IntegrationUsage };

const count = (n: number) => (n === 1 ? "1 request" : `${n.toLocaleString("en-US")} requests`);

/**
 * An integration's usage in its details (SPEC.md › Usage and reminders), read from the server
 * when the details open (`readUsage`): the 30-day chart, totals for 24 hours and 7 days, and the
 * last refused request. A failed read says so with `Retry`; the rest of the details stay.
 */
export function IntegrationUsagePanel({
  integrationId,
  readUsage,
  fields,
}: {
  integrationId: string;
  readUsage: FormAction;
  /** The owner's fields (`locationId` on a sub-account's screen) and `integrationId`. */
  fields: Record<string, string>;
}) {
  const [load, setLoad] = useState<Load>({ state: "loading" });
  const [attempt, setAttempt] = useState(0);
  const fieldsKey = JSON.stringify(fields);

  const read = useCallback(async (): Promise<Load> => {
    const form = new FormData();
    for (const [k, v] of Object.entries(JSON.parse(fieldsKey) as Record<string, string>)) form.set(k, v);
    try {
      const result = await readUsage({}, form);
      const usage = (result.data as { usage?: IntegrationUsage } | undefined)?.usage;
      if (result.ok && usage) return { state: "loaded", usage };
      return { state: "failed", message: result.error ?? "The usage could not be read." };
    } catch {
      return { state: "failed", message: "The usage could not be read: the server did not answer." };
    }
  }, [readUsage, fieldsKey]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` is the Retry button's re-read
  useEffect(() => {
    let current = true;
    setLoad({ state: "loading" });
    void read().then((next) => {
      if (current) setLoad(next);
    });
    return () => {
      current = false;
    };
  }, [read, attempt]);

  const headingId = `pi-${integrationId}-usage-title`;
  return (
    <section aria-labelledby={headingId} className="mt-4 border-t border-slate-200 pt-4">
      <h4 id={headingId} className="text-xs font-medium text-slate-500">
        Usage
      </h4>
      {load.state === "loading" ? (
        <p role="status" className="mt-1 text-sm text-slate-600">
          Reading the usage…
        </p>
      ) : load.state === "failed" ? (
        <div role="alert" className="mt-1 flex flex-wrap items-center gap-3 text-sm text-red-800">
          <p>{load.message}</p>
          <button type="button" className={buttonClass("secondary")} onClick={() => setAttempt((n) => n + 1)}>
            Retry
          </button>
        </div>
      ) : (
        <UsageView integrationId={integrationId} usage={load.usage} />
      )}
    </section>
  );
}

function UsageView({ integrationId, usage }: { integrationId: string; usage: IntegrationUsage }) {
  const refusal = usage.lastRefusal;
  return (
    <div className="mt-2 space-y-4">
      <UsageChart id={`pi-${integrationId}-chart`} days={usage.days} title="Requests, last 30 days (UTC)" />
      <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-2">
        <Total label="Last 24 hours" totals={usage.last24Hours} />
        <Total label="Last 7 days" totals={usage.last7Days} />
      </dl>
      <section aria-labelledby={`pi-${integrationId}-refusal-title`} className="text-sm">
        <h5 id={`pi-${integrationId}-refusal-title`} className="text-xs font-medium text-slate-500">
          Last refused request
        </h5>
        {refusal ? (
          <dl className="mt-1 grid gap-x-6 gap-y-2 sm:grid-cols-[max-content_1fr]">
            <dt className="text-slate-600">When</dt>
            <dd className="text-slate-800">
              <RelativeTime value={refusal.at} now={usage.readAt} />
            </dd>
            <dt className="text-slate-600">From</dt>
            <dd className="font-mono break-all text-slate-800">{refusal.address}</dd>
            <dt className="text-slate-600">Endpoint</dt>
            <dd className="font-mono break-all text-slate-800">{refusal.endpoint}</dd>
            <dt className="text-slate-600">Error</dt>
            <dd className="break-words text-slate-800">
              <code className="font-mono">{refusal.errorCode}</code>
              {refusal.description ? <>: {refusal.description}</> : null}
            </dd>
          </dl>
        ) : (
          <p className="mt-1 text-slate-600">No refused request in the last 90 days.</p>
        )}
      </section>
    </div>
  );
}

function Total({ label, totals }: { label: string; totals: UsageTotalsItem }) {
  return (
    <div>
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className="mt-0.5 text-slate-800">
        <span className="font-semibold tabular-nums">{count(totals.total)}</span>
        <span className="block text-xs text-slate-600">
          {totals.ok.toLocaleString("en-US")} succeeded, {totals.refused.toLocaleString("en-US")} refused,{" "}
          {totals.limited.toLocaleString("en-US")} rate-limited
        </span>
      </dd>
    </div>
  );
}
