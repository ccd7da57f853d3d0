"use client";

import { type FormEvent, useState, useTransition } from "react";
import { FormMessage, InputField } from "@/components/ui/field";
import { Panel } from "@/components/ui/panel";
import { buttonClass } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";
import { formatDay } from "@/lib/dates/format";
import { connectionFailed } from "./confirm-dialog";
import { Modal } from "./modal";
import { Spinner } from "./spinner";
import type { FormAction } from "./types";

const FIELD_ID = "pi-maximum-lifetime";

/**
 * The agency's `Maximum token lifetime` (days; empty: none). It says before saving what saving does
 * to integrations without an expiry or with a later one (README › Guard rails).
 */
export function MaximumLifetimeForm({
  action,
  current,
  onSaved,
}: {
  action: FormAction;
  current: number | null;
  onSaved: (message: string) => void;
}) {
  const [days, setDays] = useState(current === null ? "" : String(current));
  const [state, setState] = useState<ActionState>({});
  const [pending, startTransition] = useTransition();
  // What saving would re-date, while the person decides (SPEC.md: say how many and to which date).
  const [asking, setAsking] = useState<{ wouldCap: number; capTo: string } | null>(null);
  const error = state.fieldErrors?.maximumTokenLifetimeDays;
  const hint =
    "In days, from 1 to 366; empty means none. Every integration of the agency and its sub-accounts then needs an Expires date within it. Saving brings any integration with no expiry or a later one to today plus this many days; nothing stops working before then.";

  function save(confirmed: boolean) {
    const form = new FormData();
    form.set("maximumTokenLifetimeDays", days);
    if (confirmed) form.set("confirmed", "yes");
    startTransition(async () => {
      const result = await action({}, form).catch((): ActionState => ({ ok: false, error: connectionFailed }));
      const data = result.data as { confirm?: boolean; wouldCap?: number; capTo?: string } | undefined;
      if (data?.confirm && data.wouldCap && data.capTo) {
        setState({});
        setAsking({ wouldCap: data.wouldCap, capTo: data.capTo });
        return;
      }
      setAsking(null);
      setState(result);
      if (result.ok) onSaved(result.message ?? "Saved.");
    });
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    save(false);
  }

  return (
    <Panel titleId="pi-maximum-title" title="Maximum token lifetime" className="mt-8 p-5" titleClassName="text-base">
      <form onSubmit={submit} noValidate className="mt-3 space-y-3">
        <FormMessage error={state.error} />
        <InputField
          id={FIELD_ID}
          label="Maximum token lifetime"
          error={error}
          hint={hint}
          name="maximumTokenLifetimeDays"
          inputMode="numeric"
          value={days}
          onChange={(e) => setDays(e.target.value)}
          className="sm:max-w-[10rem]"
        />
        <button type="submit" disabled={pending} aria-busy={pending} className={buttonClass("secondary")}>
          {pending ? <Spinner /> : null}
          Save maximum
        </button>
      </form>
      {asking ? (
        <Modal
          role="alertdialog"
          labelledBy="pi-maximum-confirm-title"
          describedBy="pi-maximum-confirm-body"
          onClose={() => setAsking(null)}
          preventEscape={pending}
        >
          <div className="space-y-4 p-6">
            <h2 id="pi-maximum-confirm-title" className="text-lg font-semibold">
              Re-date {asking.wouldCap === 1 ? "1 integration" : `${asking.wouldCap} integrations`}?
            </h2>
            <p id="pi-maximum-confirm-body" className="text-sm text-slate-700">
              A Maximum token lifetime of {days} day{days === "1" ? "" : "s"} brings{" "}
              <strong>{asking.wouldCap === 1 ? "1 integration" : `${asking.wouldCap} integrations`}</strong> of the
              agency and its sub-accounts (those with no expiry or a later one) to expire on{" "}
              <strong>{formatDay(asking.capTo)}</strong>. Their tokens stop working after that date unless extended
              within the maximum.
            </p>
            <div className="flex flex-wrap justify-end gap-2">
              {/* biome-ignore lint/a11y/noAutofocus: in a modal dialog, focus starts on the safe choice */}
              <button type="button" autoFocus onClick={() => setAsking(null)} className={buttonClass("secondary")}>
                Cancel
              </button>
              <button
                type="button"
                onClick={() => save(true)}
                disabled={pending}
                aria-busy={pending}
                className={buttonClass("danger")}
              >
                {pending ? <Spinner /> : null}
                Confirm
              </button>
            </div>
          </div>
        </Modal>
      ) : null}
    </Panel>
  );
}

/** On a sub-account's screen: the agency's maximum, read-only. */
export function MaximumLifetimeNote({ days }: { days: number | null }) {
  if (days === null) return null;
  return (
    <p className="mt-8 text-sm text-slate-600">
      Your agency's Maximum token lifetime is {days === 1 ? "1 day" : `${days} days`}: every integration here needs an
      Expires date within it.
    </p>
  );
}
