"use client";

import { useActionState, useState } from "react";
import { Choice, checkboxClass, FormMessage, radioClass } from "@/components/ui/field";
import { buttonClass, SubmitButton } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";

type Action = (prev: ActionState, formData: FormData) => Promise<ActionState>;

/** The request being authorized, sent back with each button so the server checks it again. */
function HiddenParams({ params }: { params: Record<string, string> }) {
  return (
    <>
      {Object.entries(params).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
    </>
  );
}

export function InstallForm({
  params,
  level,
  locations,
  selected,
  installToFutureLocations,
  approve,
  cancel,
}: {
  params: Record<string, string>;
  level: "agency" | "location";
  locations: { id: string; name: string; note?: string }[];
  /** Pre-chosen sub-accounts (all of them, or those chosen at the last install). */
  selected: string[];
  /** Whether "Also install on sub-accounts created later" starts checked. */
  installToFutureLocations: boolean;
  approve: Action;
  cancel: Action;
}) {
  const [state, approveAction] = useActionState(approve, {});
  const [cancelState, cancelAction] = useActionState(cancel, {});
  const [chosen, setChosen] = useState<string[]>(selected);
  const [future, setFuture] = useState(installToFutureLocations);
  const allChosen = locations.length > 0 && chosen.length === locations.length;
  // Offered only with all sub-accounts (an agency without any yet counts as all of them).
  const offerFuture = level === "agency" && (allChosen || locations.length === 0);
  const error = state.fieldErrors?.locationIds ?? state.fieldErrors?.locationId;

  function toggle(id: string, on: boolean) {
    setChosen((current) => (on ? [...new Set([...current, id])] : current.filter((c) => c !== id)));
  }

  return (
    <div className="space-y-5">
      <FormMessage error={state.error ?? cancelState.error} />
      <form action={approveAction} className="space-y-4">
        <HiddenParams params={params} />
        <input type="hidden" name="level" value={level} />
        {level === "agency" ? (
          <fieldset aria-describedby={error ? "locations-error" : undefined}>
            <legend className="text-sm font-medium text-slate-800">Install for these sub-accounts</legend>
            {locations.length === 0 ? (
              <p className="mt-2 text-sm text-slate-600">
                <input type="hidden" name="allLocations" value="true" />
                Your agency has no sub-accounts yet; the app is installed for the agency.
              </p>
            ) : (
              <div className="mt-2 space-y-2">
                <Choice
                  labelClassName="flex items-center gap-2 text-sm font-medium"
                  type="checkbox"
                  name="allLocations"
                  value="true"
                  checked={allChosen}
                  onChange={(e) => setChosen(e.target.checked ? locations.map((l) => l.id) : [])}
                  className={checkboxClass}
                >
                  All sub-accounts
                </Choice>
                <ul className="ml-6 space-y-1.5">
                  {locations.map((l) => (
                    <li key={l.id}>
                      <Choice
                        type="checkbox"
                        name="locationIds[]"
                        value={l.id}
                        checked={chosen.includes(l.id)}
                        onChange={(e) => toggle(l.id, e.target.checked)}
                        className={checkboxClass}
                      >
                        {l.name}
                      </Choice>
                    </li>
                  ))}
                </ul>
              </div>
            )}
            {offerFuture ? (
              <div className="mt-3 border-t border-slate-100 pt-3">
                <Choice
                  type="checkbox"
                  name="installToFutureLocations"
                  value="true"
                  checked={future}
                  onChange={(e) => setFuture(e.target.checked)}
                  aria-describedby="future-locations-hint"
                  className={checkboxClass}
                >
                  Also install on sub-accounts created later
                </Choice>
                <p id="future-locations-hint" className="ml-6 text-xs text-slate-500">
                  Each new sub-account of your agency gets the app at once.
                </p>
              </div>
            ) : null}
          </fieldset>
        ) : (
          <fieldset aria-describedby={error ? "locations-error" : undefined}>
            <legend className="text-sm font-medium text-slate-800">Install in this sub-account</legend>
            <ul className="mt-2 space-y-1.5">
              {locations.map((l, i) => (
                <li key={l.id}>
                  <Choice type="radio" name="locationId" value={l.id} defaultChecked={i === 0} className={radioClass}>
                    {l.name}
                    {l.note ? <span className="text-xs text-slate-500">({l.note})</span> : null}
                  </Choice>
                </li>
              ))}
            </ul>
          </fieldset>
        )}
        {error ? (
          <p id="locations-error" className="text-sm text-red-600">
            {error}
          </p>
        ) : null}
        {/* Install comes first in the DOM so Enter installs; shown on the right. */}
        <div className="flex flex-row-reverse justify-start gap-3 border-t border-slate-100 pt-4">
          <SubmitButton pendingLabel="Installing…">Install</SubmitButton>
          <button type="submit" formAction={cancelAction} formNoValidate className={buttonClass("secondary")}>
            Cancel
          </button>
        </div>
      </form>
    </div>
  );
}
