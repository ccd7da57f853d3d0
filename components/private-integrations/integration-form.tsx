"use client";

import { type FormEvent, useEffect, useRef, useState, useTransition } from "react";
import { describedBy, Field, inputClass } from "@/components/ui/field";
import { buttonClass } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";
import { ScopePicker } from "./scope-picker";
import { Spinner } from "./spinner";
import type { FormAction, ScopeGroup } from "./types";

/**
 * Create or edit an integration: name, description and scopes of this level. Submitted through the
 * server action without resetting the form, so what was typed and ticked stays when the server
 * refuses it and the refusal shows beside the field.
 */
export function IntegrationForm({
  mode,
  idPrefix,
  initial,
  groups,
  levelWords,
  action,
  fields,
  onDone,
  onCancel,
}: {
  mode: "create" | "edit";
  idPrefix: string;
  initial?: { name: string; description: string; scopes: string[] };
  groups: ScopeGroup[];
  levelWords: string;
  action: FormAction;
  /** Hidden fields: the integration and sub-account ids. */
  fields: Record<string, string>;
  onDone: (result: ActionState) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(initial?.name ?? "");
  const [description, setDescription] = useState(initial?.description ?? "");
  const [scopes, setScopes] = useState<Set<string>>(() => new Set(initial?.scopes ?? []));
  const [state, setState] = useState<ActionState>({});
  const [pending, startTransition] = useTransition();
  const formRef = useRef<HTMLFormElement>(null);
  const errors = state.fieldErrors ?? {};
  const nameId = `${idPrefix}-name`;
  const descriptionId = `${idPrefix}-description`;

  // After a refusal, take the keyboard to the first field that needs attention.
  useEffect(() => {
    const form = formRef.current;
    if (!form || !state.fieldErrors) return;
    const first = form.querySelector<HTMLElement>('[aria-invalid="true"]');
    if (first instanceof HTMLFieldSetElement) first.querySelector<HTMLElement>("input")?.focus();
    else first?.focus();
  }, [state]);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    startTransition(async () => {
      const result = await action({}, form);
      if (result.ok) onDone(result);
      else setState(result);
    });
  }

  return (
    <form
      ref={formRef}
      onSubmit={submit}
      noValidate
      className="space-y-5"
      onKeyDown={(e) => {
        if (e.key === "Escape" && !pending) {
          e.preventDefault();
          onCancel();
        }
      }}
    >
      {Object.entries(fields).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      {state.error ? (
        <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 ring-1 ring-red-200">
          {state.error}
        </p>
      ) : null}
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id={nameId} label="Name" error={errors.name} hint="What uses it, e.g. “Zapier” or “Billing sync”.">
          <input
            {...describedBy(nameId, errors.name, "hint")}
            name="name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={80}
            autoComplete="off"
            // biome-ignore lint/a11y/noAutofocus: the form opens on request; typing the name comes first
            autoFocus
            className={inputClass}
          />
        </Field>
        <Field
          id={descriptionId}
          label="Description"
          error={errors.description}
          hint="Optional. Who owns it and where the token is kept, for whoever rotates it next."
        >
          <textarea
            {...describedBy(descriptionId, errors.description, "hint")}
            name="description"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            maxLength={500}
            rows={2}
            className={inputClass}
          />
        </Field>
      </div>
      <ScopePicker
        groups={groups}
        selected={scopes}
        onChange={setScopes}
        error={errors.scopes}
        levelWords={levelWords}
      />
      {mode === "edit" ? (
        <p className="text-sm text-slate-600">
          Saving keeps the current token: it goes on working, with the new scopes from the moment you save.
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <button type="submit" disabled={pending} aria-busy={pending} className={buttonClass("primary")}>
          {pending ? <Spinner /> : null}
          {mode === "create" ? "Create" : "Save"}
        </button>
        <button type="button" onClick={onCancel} disabled={pending} className={buttonClass("secondary")}>
          Cancel
        </button>
      </div>
    </form>
  );
}
