"use client";

import { type PublicKeyCredentialCreationOptionsJSON, startRegistration } from "@simplewebauthn/browser";
import { useId, useRef, useState, useTransition } from "react";
import { useGuardedAction } from "@/components/account/confirm-identity";
import { answerLost, ConfirmDialog } from "@/components/private-integrations/confirm-dialog";
import { newIdempotencyKey } from "@/components/private-integrations/idempotency-key";
import type { FormAction } from "@/components/private-integrations/types";
import { FormMessage, InputField } from "@/components/ui/field";
import { RelativeTime } from "@/components/ui/relative-time";
import { buttonClass } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";
import { PasskeyIpNote } from "./passkey-ip-note";

export interface PasskeyItem {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface PasskeyActions {
  /** The name checked and the browser prompt's options (`data.options`). */
  registrationOptions: FormAction;
  /** `name` and the browser's answer (`response`, JSON): stored; `data.recoveryCodes` when two-factor turned on. */
  add: FormAction;
  /** `id`: removed (guarded by `Confirm it's you` on the server). */
  remove: FormAction;
}

const unreachable = "The request did not reach the server. Check the connection and try again.";

/**
 * The Passkeys part of `Two-factor authentication`: `Passkey name` and `Add a passkey` (the browser
 * makes the credential between the two server actions), and each passkey with when it was added
 * and last used, and a confirmed `Remove`. `onChange` hears each change's answer (its message and
 * the recovery codes of a first passkey).
 */
export function Passkeys({
  passkeys,
  renderedAt,
  appOrigin,
  actions,
  onChange,
}: {
  passkeys: PasskeyItem[];
  renderedAt: string;
  appOrigin: string;
  actions: PasskeyActions;
  /** `idempotencyKey`: the add's key, whose stored answer (the recovery codes) the server forgets once shown. */
  onChange: (state: ActionState, idempotencyKey?: string) => void;
}) {
  const rowId = useId();
  const remove = useGuardedAction(actions.remove);
  const [error, setError] = useState<string>();
  const [nameError, setNameError] = useState<string>();
  const [removing, setRemoving] = useState<PasskeyItem>();
  const [pending, startTransition] = useTransition();
  // An add whose answer was lost: pressing again sends the same browser answer under the same key,
  // so the server answers what it did (the passkey, the recovery codes) instead of a new ceremony.
  const lost = useRef<FormData | null>(null);

  function add(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    setError(undefined);
    setNameError(undefined);
    const retry = lost.current;
    if (retry) {
      startTransition(() => send(retry, formElement));
      return;
    }
    const form = new FormData(formElement);
    startTransition(async () => {
      try {
        const begun = await actions.registrationOptions({}, form);
        const options = begun.data?.options as PublicKeyCredentialCreationOptionsJSON | undefined;
        if (!begun.ok || !options) {
          if (begun.fieldErrors?.name) setNameError(begun.fieldErrors.name);
          else setError(begun.error ?? "Could not start adding a passkey. Try again.");
          return;
        }
        try {
          form.set("response", JSON.stringify(await startRegistration({ optionsJSON: options })));
        } catch (failure) {
          setError(
            (failure as { code?: string }).code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED"
              ? "This authenticator already keeps one of your passkeys, so none was added."
              : "No passkey was added: the browser's prompt was closed, or it offers no passkeys here.",
          );
          return;
        }
      } catch {
        setError(unreachable);
        return;
      }
      form.set("idempotencyKey", newIdempotencyKey());
      await send(form, formElement);
    });
  }

  async function send(form: FormData, formElement: HTMLFormElement) {
    let state: ActionState;
    try {
      state = await actions.add({}, form);
    } catch {
      lost.current = form;
      setError(answerLost("Press Add a passkey again", "the same passkey and recovery codes"));
      return;
    }
    lost.current = null;
    if (!state.ok) {
      if (state.fieldErrors?.name) setNameError(state.fieldErrors.name);
      else setError(state.error ?? Object.values(state.fieldErrors ?? {})[0] ?? "No passkey was added. Try again.");
      return;
    }
    formElement.reset();
    onChange(state, String(form.get("idempotencyKey")));
  }

  return (
    <div className="space-y-3">
      <p className="text-sm text-slate-700">
        A passkey signs you in with your device's screen lock or a security key, without your e-mail address or
        password.
      </p>
      <PasskeyIpNote appOrigin={appOrigin} />
      {passkeys.length ? (
        <ul className="divide-y divide-slate-100">
          {passkeys.map((passkey, index) => (
            <li key={passkey.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
              <div id={`${rowId}-${index}`} className="min-w-0 text-sm">
                <p className="font-medium break-words text-slate-900">{passkey.name}</p>
                <p className="text-slate-600">
                  Added <RelativeTime value={passkey.createdAt} now={renderedAt} /> ·{" "}
                  {passkey.lastUsedAt ? (
                    <>
                      last used <RelativeTime value={passkey.lastUsedAt} now={renderedAt} />
                    </>
                  ) : (
                    "not used yet"
                  )}
                </p>
              </div>
              <button
                type="button"
                aria-describedby={`${rowId}-${index}`}
                onClick={() => setRemoving(passkey)}
                className={buttonClass("secondary")}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-slate-600">You have no passkeys yet.</p>
      )}
      <form onSubmit={add} className="space-y-3" noValidate>
        <FormMessage error={error} />
        <InputField
          id={`${rowId}-name`}
          label="Passkey name"
          name="name"
          maxLength={60}
          hint="Up to 60 characters, e.g. the device or password manager that keeps it."
          error={nameError}
          className="max-w-sm"
          autoComplete="off"
          required
        />
        <button type="submit" className={buttonClass("secondary")} disabled={pending}>
          {pending ? "Adding…" : "Add a passkey"}
        </button>
      </form>
      {removing ? (
        <ConfirmDialog
          title={`Remove the passkey “${removing.name}”?`}
          action={remove}
          fields={{ id: removing.id }}
          tone="danger"
          onClose={() => setRemoving(undefined)}
          onDone={(state) => {
            setRemoving(undefined);
            onChange(state);
          }}
          // The removed passkey's button is gone: focus goes on to the name field.
          fallbackFocus={() => document.getElementById(`${rowId}-name`)}
        >
          <p>
            It will no longer sign you in. If it is your last second factor, two-factor authentication turns off and
            your recovery codes stop working.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
