// Over 250 lines on purpose: its markup is already the shared fields (components/ui/field.tsx and
// expires-field.tsx); what is left is one form's state, which its parts read together: what was
// typed, when Advanced opens (a value or an error inside it), the default Expires, errors cleared as fixed.
"use client";

import { type ChangeEvent, type FormEvent, useEffect, useRef, useState, useTransition } from "react";
import { useDiscardChanges } from "@/components/ui/discard-changes";
import { Choice, ChoiceGroup, FormMessage, InputField, TextareaField } from "@/components/ui/field";
import { buttonClass } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";
import { answerLost, connectionFailed } from "./confirm-dialog";
import { ExpiresField } from "./expires-field";
import { newIdempotencyKey } from "./idempotency-key";
import { ScopePicker } from "./scope-picker";
import { Spinner } from "./spinner";
import type { FormAction, IntegrationItem, ScopeGroup, SubAccountOption } from "./types";

const ADVANCED_FIELDS = ["subAccounts", "allowedIpAddresses"] as const;

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
  subAccountOptions,
  maximumLifetimeDays,
  levelWords,
  action,
  fields,
  onDone,
  onCancel,
  focusField,
  defaultExpires,
  today,
}: {
  mode: "create" | "edit";
  idPrefix: string;
  initial?: Pick<IntegrationItem, "name" | "description" | "scopes" | "expires" | "subAccounts" | "allowedIpAddresses">;
  groups: ScopeGroup[];
  /** The agency's sub-accounts, for `Sub-accounts` (agency integrations only; undefined elsewhere). */
  subAccountOptions?: SubAccountOption[];
  /** The agency's `Maximum token lifetime` in days, or null: said beside `Expires`. */
  maximumLifetimeDays: number | null;
  levelWords: string;
  action: FormAction;
  /** Hidden fields: the integration and sub-account ids. */
  fields: Record<string, string>;
  onDone: (result: ActionState) => void;
  onCancel: () => void;
  /** `Extend expiry` opens the form with `Expires` focused. */
  focusField?: "expires";
  /** A new form's `Expires` (YYYY-MM-DD): 90 days ahead, or the latest date an agency maximum allows. */
  defaultExpires?: string;
  /** The server's UTC date (YYYY-MM-DD), which the buttons beside `Expires` count from. */
  today: string;
}) {
  const [name, setName] = useState(initial?.name ?? "");
  const [description, setDescription] = useState(initial?.description ?? "");
  const [scopes, setScopes] = useState<Set<string>>(() => new Set(initial?.scopes ?? []));
  // `Expires` is shown outside Advanced, a new integration's filled with its default (a choice, not
  // a hidden default); with an agency maximum it is required.
  const [expires, setExpires] = useState(initial?.expires ?? defaultExpires ?? "");
  // A maximum saved while this form was already open (its page's new props arrive after the form)
  // moves a new integration's untouched `Expires` to the new default.
  const [shownDefault, setShownDefault] = useState(defaultExpires);
  if (defaultExpires !== shownDefault) {
    setShownDefault(defaultExpires);
    if (!initial && expires === (shownDefault ?? "")) setExpires(defaultExpires ?? "");
  }
  const [allSubAccounts, setAllSubAccounts] = useState(initial?.subAccounts.all ?? true);
  const [chosen, setChosen] = useState<Set<string>>(
    () => new Set(initial && !initial.subAccounts.all ? initial.subAccounts.chosen.map((c) => c.id) : []),
  );
  const [addresses, setAddresses] = useState(initial?.allowedIpAddresses.join("\n") ?? "");
  const [state, setState] = useState<ActionState>({});
  const [pending, startTransition] = useTransition();
  // Create's key, kept while the form is open: Create pressed again after a lost answer is answered
  // with the integration already created and its token, never a second one.
  const [idempotencyKey] = useState(newIdempotencyKey);
  const formRef = useRef<HTMLFormElement>(null);
  // Escape and Cancel ask `Discard changes?` once something was typed or chosen.
  const discard = useDiscardChanges(onCancel, formRef);
  // Fixing a field clears its error; the others stay until fixed or the form is sent again.
  const [fixed, setFixed] = useState<ReadonlySet<string>>(new Set());
  const errors = Object.fromEntries(Object.entries(state.fieldErrors ?? {}).filter(([field]) => !fixed.has(field)));
  function clearError(field: string) {
    if (state.fieldErrors?.[field] && !fixed.has(field)) setFixed(new Set([...fixed, field]));
  }
  /** A text field's onChange: keep what was typed, clear that field's error. */
  function edit(set: (value: string) => void, field: string) {
    return (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      set(e.target.value);
      clearError(field);
    };
  }
  const nameId = `${idPrefix}-name`;
  const descriptionId = `${idPrefix}-description`;
  const expiresId = `${idPrefix}-expires`;
  const addressesId = `${idPrefix}-addresses`;
  const subAccountsId = `${idPrefix}-sub-accounts`;
  // Open when one of its fields has a value or an error, so nothing set or refused is hidden.
  const advancedSet = !allSubAccounts || addresses.trim() !== "" || ADVANCED_FIELDS.some((f) => errors[f]);
  const [advancedOpen, setAdvancedOpen] = useState(advancedSet);
  const expiresInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (focusField === "expires") expiresInput.current?.focus();
  }, [focusField]);
  useEffect(() => {
    if (ADVANCED_FIELDS.some((f) => state.fieldErrors?.[f])) setAdvancedOpen(true);
  }, [state]);

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
    if (mode === "create") form.set("idempotencyKey", idempotencyKey);
    startTransition(async () => {
      // A dropped connection or a server error stays in the form, what was typed kept; submit retries.
      const result = await action({}, form).catch(
        (): ActionState => ({
          ok: false,
          error:
            mode === "create" ? answerLost("Press Create again") : `${connectionFailed} Press Save again to retry.`,
        }),
      );
      if (result.ok) onDone(result);
      else {
        setFixed(new Set());
        setState(result);
      }
    });
  }

  return (
    <form
      ref={formRef}
      onSubmit={submit}
      noValidate
      className="space-y-5"
      onKeyDown={(e) => {
        // An Escape in the Discard changes? dialog is that dialog's.
        if (e.key === "Escape" && !pending && !(e.target instanceof Element && e.target.closest("dialog"))) {
          e.preventDefault();
          discard.requestClose();
        }
      }}
    >
      {Object.entries(fields).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <FormMessage error={state.error} />
      <div className="grid gap-4 sm:grid-cols-2">
        <InputField
          id={nameId}
          label="Name"
          error={errors.name}
          hint="What uses it, e.g. “Zapier” or “Billing sync”."
          name="name"
          value={name}
          onChange={edit(setName, "name")}
          maxLength={80}
          autoComplete="off"
          // Focus the name: the form opens on request, and typing the name comes first.
          autoFocus={focusField === undefined}
        />
        <TextareaField
          id={descriptionId}
          label="Description"
          error={errors.description}
          hint="Optional. Who owns it and where the token is kept, for whoever rotates it next."
          name="description"
          value={description}
          onChange={edit(setDescription, "description")}
          maxLength={500}
          rows={2}
        />
      </div>
      <ScopePicker
        groups={groups}
        selected={scopes}
        onChange={(next) => {
          setScopes(next);
          clearError("scopes");
        }}
        error={errors.scopes}
        levelWords={levelWords}
      />
      <ExpiresField
        id={expiresId}
        mode={mode}
        value={expires}
        onChange={(value) => {
          setExpires(value);
          clearError("expires");
        }}
        error={errors.expires}
        today={today}
        maximumDays={maximumLifetimeDays}
        inputRef={expiresInput}
      />
      <details
        open={advancedOpen}
        onToggle={(e) => setAdvancedOpen(e.currentTarget.open)}
        className="rounded-md ring-1 ring-slate-200"
      >
        <summary className="cursor-pointer px-3 py-2 text-sm font-medium text-slate-800">Advanced</summary>
        <div className="space-y-4 border-t border-slate-100 p-3">
          {subAccountOptions ? (
            <ChoiceGroup
              id={subAccountsId}
              legend="Sub-accounts"
              errorId={`${subAccountsId}-error`}
              error={errors.subAccounts}
              aria-invalid={errors.subAccounts ? true : undefined}
              className="space-y-2"
            >
              <Choice
                type="radio"
                name="subAccounts"
                value="all"
                checked={allSubAccounts}
                onChange={() => setAllSubAccounts(true)}
              >
                All sub-accounts
                <span className="text-xs text-slate-500">(including ones created later)</span>
              </Choice>
              <Choice
                type="radio"
                name="subAccounts"
                value="chosen"
                checked={!allSubAccounts}
                onChange={() => setAllSubAccounts(false)}
              >
                Only the sub-accounts chosen below
              </Choice>
              {!allSubAccounts ? (
                subAccountOptions.length === 0 ? (
                  <p className="ml-6 text-sm text-slate-600">This agency has no sub-accounts yet.</p>
                ) : (
                  <ul className="ml-6 max-h-48 space-y-1 overflow-y-auto">
                    {subAccountOptions.map((option) => (
                      <li key={option.id}>
                        <Choice
                          type="checkbox"
                          name="subAccountIds[]"
                          value={option.id}
                          checked={chosen.has(option.id)}
                          onChange={(e) => {
                            const next = new Set(chosen);
                            if (e.target.checked) next.add(option.id);
                            else next.delete(option.id);
                            setChosen(next);
                          }}
                        >
                          {option.name}
                        </Choice>
                      </li>
                    ))}
                  </ul>
                )
              ) : null}
            </ChoiceGroup>
          ) : null}
          <TextareaField
            id={addressesId}
            label="Allowed IP addresses"
            error={errors.allowedIpAddresses}
            hint="Optional: one IPv4 or IPv6 address or CIDR range per line, e.g. 203.0.113.7 or 2001:db8::/32. Empty means any address."
            name="allowedIpAddresses"
            value={addresses}
            onChange={edit(setAddresses, "allowedIpAddresses")}
            rows={3}
            spellCheck={false}
            className="font-mono"
          />
        </div>
      </details>
      {mode === "edit" ? (
        <p className="text-sm text-slate-600">
          Saving keeps the current token: it goes on working, with the new scopes and guard rails from the moment you
          save.
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <button type="submit" disabled={pending} aria-busy={pending} className={buttonClass("primary")}>
          {pending ? <Spinner /> : null}
          {mode === "create" ? "Create" : "Save"}
        </button>
        <button type="button" onClick={discard.requestClose} disabled={pending} className={buttonClass("secondary")}>
          Cancel
        </button>
      </div>
      {/* `Discard changes?`, a modal: the keys pressed in it are its own (see onKeyDown). */}
      {discard.question}
    </form>
  );
}
