"use client";

import type { Ref } from "react";
import { describedBy, FieldNotes, inputClass } from "@/components/ui/field";
import {
  type DateChoice,
  daysAhead,
  extendChoices,
  formatExpiresDate,
  isExpiresDate,
  latestAllowedDate,
  presetChoices,
} from "@/lib/integrations/expiry-presets";

const choiceClass =
  "min-h-8 rounded-md bg-surface px-2.5 py-1 text-sm font-medium text-slate-800 ring-1 ring-slate-500 ring-inset hover:bg-slate-100 aria-pressed:bg-accent aria-pressed:text-white aria-pressed:ring-accent disabled:cursor-not-allowed disabled:text-slate-600 disabled:line-through disabled:ring-slate-400 disabled:hover:bg-surface";

function days(n: number): string {
  return n === 1 ? "1 day" : `${n} days`;
}

function listed(labels: string[]): string {
  return labels.length < 2 ? (labels[0] ?? "") : `${labels.slice(0, -1).join(", ")} and ${labels.at(-1)}`;
}

/** What the date in the field means, said beside it as it changes. */
function Meaning({ id, value, today, warnNever }: { id: string; value: string; today: string; warnNever: boolean }) {
  if (isExpiresDate(value)) {
    const ahead = daysAhead(value, today);
    return (
      <p id={id} aria-live="polite" className="text-xs text-slate-600">
        {ahead < 0
          ? `That date (${formatExpiresDate(value)}) has passed: its tokens would not work.`
          : `Its tokens work until the end of ${formatExpiresDate(value)} (UTC), ${ahead === 0 ? "today" : `in ${days(ahead)}`}.`}
      </p>
    );
  }
  if (!warnNever)
    return (
      <p id={id} aria-live="polite" className="sr-only">
        No date chosen.
      </p>
    );
  return (
    <p
      id={id}
      aria-live="polite"
      className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-300 ring-inset"
    >
      <strong className="font-semibold">Never expires.</strong> A token that never expires is a risk: if it leaks, it
      keeps working until someone notices. Choose a date unless what uses it cannot be updated.
    </p>
  );
}

/**
 * `Expires` with the buttons beside it (SPEC.md › Expiry is a choice, not a hidden default): on the
 * create form `30 days`, `60 days`, `90 days`, `1 year` and `No expiration`; on the edit form
 * (`Extend expiry`) `+30 days` and `+90 days`. Under an agency maximum, `No expiration` is not
 * offered and a button whose date is past the maximum is turned off, which the hint says. Dates
 * are counted from `today`, the server's UTC date.
 */
export function ExpiresField({
  id,
  mode,
  value,
  onChange,
  error,
  today,
  maximumDays,
  inputRef,
}: {
  id: string;
  mode: "create" | "edit";
  value: string;
  onChange: (value: string) => void;
  error?: string;
  /** The server's UTC date, YYYY-MM-DD. */
  today: string;
  /** The agency's `Maximum token lifetime`, or null. */
  maximumDays: number | null;
  inputRef?: Ref<HTMLInputElement>;
}) {
  const latest = latestAllowedDate(today, maximumDays);
  const choices: DateChoice[] =
    mode === "create" ? presetChoices(today, maximumDays) : extendChoices(value, today, maximumDays);
  const turnedOff = choices.filter((c) => !c.allowed).map((c) => c.label);
  const hint =
    maximumDays === null || latest === null
      ? mode === "create"
        ? "The last day its token works. Choose a date, or No expiration."
        : "The last day its token works; empty means it never expires."
      : `Required: your agency's Maximum token lifetime is ${days(maximumDays)}, so choose a date on or before ${formatExpiresDate(latest)}.${
          turnedOff.length
            ? ` ${listed(turnedOff)} would go past it, so ${turnedOff.length === 1 ? "it is" : "they are"} turned off.`
            : ""
        }`;
  const meaningId = `${id}-meaning`;
  const tied = describedBy(id, error, hint);
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        Expires
      </label>
      <div className="flex flex-wrap items-center gap-2">
        <input
          {...tied}
          aria-describedby={[tied["aria-describedby"], meaningId].filter(Boolean).join(" ")}
          ref={inputRef}
          type="date"
          name="expires"
          value={value}
          min={today}
          max={latest ?? undefined}
          onChange={(e) => onChange(e.target.value)}
          className={`${inputClass} sm:max-w-48`}
        />
        <fieldset aria-label={mode === "create" ? "Expiry presets" : "Extend by"} className="flex flex-wrap gap-2">
          {choices.map((c) => (
            <button
              key={c.label}
              type="button"
              disabled={!c.allowed}
              aria-pressed={mode === "create" ? value === c.date : undefined}
              onClick={() => onChange(c.date)}
              className={choiceClass}
            >
              {c.label}
            </button>
          ))}
          {mode === "create" && maximumDays === null ? (
            <button type="button" aria-pressed={value === ""} onClick={() => onChange("")} className={choiceClass}>
              No expiration
            </button>
          ) : null}
        </fieldset>
      </div>
      <FieldNotes id={id} error={error} hint={hint} />
      <Meaning id={meaningId} value={value} today={today} warnNever={maximumDays === null} />
    </div>
  );
}
