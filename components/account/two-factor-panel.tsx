"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { useGuardedAction } from "@/components/account/confirm-identity";
import { answerLost, ConfirmDialog } from "@/components/private-integrations/confirm-dialog";
import { newIdempotencyKey } from "@/components/private-integrations/idempotency-key";
import type { FormAction } from "@/components/private-integrations/types";
import { FormMessage, InputField } from "@/components/ui/field";
import { useForgetWhenShown } from "@/components/ui/once-per-press";
import { buttonClass } from "@/components/ui/submit-button";
import { type PasskeyActions, type PasskeyItem, Passkeys } from "./passkeys";
import { RecoveryCodes } from "./recovery-codes";

const removeConsequence =
  "Its codes will no longer sign you in. If it is your last second factor, two-factor authentication turns off and your recovery codes stop working.";

export interface TwoFactorActions {
  beginTotp: FormAction;
  confirmTotp: FormAction;
  removeTotp: FormAction;
  regenerateCodes: FormAction;
  passkeys: PasskeyActions;
  /** `idempotencyKey`: the recovery codes of its answer were shown; the server forgets them. */
  forgetShown: FormAction;
}

/**
 * `Two-factor authentication` on /settings/account: the authenticator app (set up with a QR code
 * and its first code, or removed), passkeys (added under a name, or removed), and the recovery
 * codes (shown once when two-factor turns on or they are regenerated). Removing and regenerating
 * are confirmed, and may ask `Confirm it's you`. Verify and Regenerate send idempotency keys:
 * pressed again after a lost answer, the same codes come back; once shown, the server forgets them.
 */
export function TwoFactorPanel({
  totp,
  on,
  recoveryCodesLeft,
  passkeys,
  renderedAt,
  appOrigin,
  actions,
}: {
  totp: boolean;
  on: boolean;
  recoveryCodesLeft: number;
  passkeys: PasskeyItem[];
  /** When the page was rendered (ISO): the passkeys' times read relative to it. */
  renderedAt: string;
  /** APP_URL's origin: passkeys work there only. */
  appOrigin: string;
  actions: TwoFactorActions;
}) {
  const router = useRouter();
  const removeTotp = useGuardedAction(actions.removeTotp);
  const regenerateCodes = useGuardedAction(actions.regenerateCodes);
  const [setup, setSetup] = useState<{ secret: string; qr: string }>();
  const [codes, setCodes] = useState<string[]>();
  const [verifyKey, setVerifyKey] = useState(newIdempotencyKey);
  const [codesKey, setCodesKey] = useState<string>();
  useForgetWhenShown(actions.forgetShown, codesKey ?? "", Boolean(codes && codesKey));
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<string>();
  const [codeError, setCodeError] = useState<string>();
  const [confirming, setConfirming] = useState<"remove" | "regenerate">();
  const [pending, startTransition] = useTransition();

  function begin() {
    setError(undefined);
    setMessage(undefined);
    startTransition(async () => {
      try {
        const state = await actions.beginTotp({}, new FormData());
        const secret = state.data?.secret;
        const qr = state.data?.qr;
        if (typeof secret === "string" && typeof qr === "string") {
          setVerifyKey(newIdempotencyKey());
          setSetup({ secret, qr });
        } else setError(state.error ?? "Could not start the set-up. Try again.");
      } catch {
        setError("The request did not reach the server. Check the connection and try again.");
      }
    });
  }

  function verify(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    form.set("idempotencyKey", verifyKey);
    setCodeError(undefined);
    startTransition(async () => {
      try {
        const state = await actions.confirmTotp({}, form);
        if (!state.ok) {
          setCodeError(state.fieldErrors?.code ?? state.error ?? "That code is not right.");
          return;
        }
        setSetup(undefined);
        setMessage(state.message);
        const fresh = state.data?.recoveryCodes;
        if (Array.isArray(fresh)) {
          setCodes(fresh.map(String));
          setCodesKey(verifyKey);
        }
        router.refresh();
      } catch {
        setCodeError(answerLost("Press Verify again", "the same recovery codes"));
      }
    });
  }

  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-600">
        {on
          ? "Two-factor authentication is on: signing in asks for a second step after your password."
          : "Two-factor authentication is off. Add an authenticator app or a passkey so that a password alone cannot open your account."}
      </p>
      <FormMessage error={error} message={message} />
      {codes ? <RecoveryCodes codes={codes} /> : null}

      <div className="space-y-3 border-t border-slate-100 pt-4">
        <h3 className="text-sm font-semibold text-slate-800">Authenticator app</h3>
        {totp ? (
          <div className="flex flex-wrap items-center justify-between gap-3">
            <p className="text-sm text-slate-700">On: sign-in asks for the 6-digit code your app shows.</p>
            <button type="button" className={buttonClass("secondary")} onClick={() => setConfirming("remove")}>
              Remove authenticator app
            </button>
          </div>
        ) : setup ? (
          <form onSubmit={verify} className="space-y-4" noValidate>
            <p className="text-sm text-slate-700">
              Scan this QR code with your authenticator app (or type the key below into it), then enter the 6-digit code
              it shows.
            </p>
            {/* biome-ignore lint/performance/noImgElement: a data URL made on the server; nothing to optimise */}
            <img
              src={setup.qr}
              alt="QR code to add this account to an authenticator app"
              width={200}
              height={200}
              className="rounded bg-white p-2 ring-1 ring-slate-200"
            />
            <p className="text-sm text-slate-700">
              Key:{" "}
              <code data-testid="totp-secret" className="break-all font-mono text-slate-900">
                {setup.secret}
              </code>
            </p>
            <InputField
              id="totp-code"
              label="Authentication code"
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              error={codeError}
              className="max-w-40 font-mono"
              required
            />
            <div className="flex flex-wrap gap-2">
              <button type="submit" className={buttonClass("primary")} disabled={pending}>
                {pending ? "Verifying…" : "Verify"}
              </button>
              <button type="button" className={buttonClass("secondary")} onClick={() => setSetup(undefined)}>
                Cancel
              </button>
            </div>
          </form>
        ) : (
          <button type="button" className={buttonClass("secondary")} onClick={begin} disabled={pending}>
            Set up authenticator app
          </button>
        )}
      </div>

      <div className="space-y-3 border-t border-slate-100 pt-4">
        <h3 className="text-sm font-semibold text-slate-800">Passkeys</h3>
        <Passkeys
          passkeys={passkeys}
          renderedAt={renderedAt}
          appOrigin={appOrigin}
          actions={actions.passkeys}
          onChange={(state, key) => {
            setError(undefined);
            setMessage(state.message);
            const fresh = state.data?.recoveryCodes;
            // Shown once (then forgotten by the server too), when the first passkey turned two-factor on.
            setCodes(Array.isArray(fresh) ? fresh.map(String) : undefined);
            setCodesKey(Array.isArray(fresh) ? key : undefined);
            router.refresh();
          }}
        />
      </div>

      {on ? (
        <div className="space-y-3 border-t border-slate-100 pt-4">
          <h3 className="text-sm font-semibold text-slate-800">Recovery codes</h3>
          <div className="flex flex-wrap items-center justify-between gap-3">
            <p className="text-sm text-slate-700">
              {recoveryCodesLeft} of 10 left. Each signs you in once without your app or passkey.
            </p>
            <button type="button" className={buttonClass("secondary")} onClick={() => setConfirming("regenerate")}>
              Regenerate recovery codes
            </button>
          </div>
        </div>
      ) : null}

      {confirming === "remove" ? (
        <ConfirmDialog
          title="Remove the authenticator app?"
          action={removeTotp}
          fields={{}}
          tone="danger"
          onClose={() => setConfirming(undefined)}
          onDone={(state) => {
            setConfirming(undefined);
            setCodes(undefined);
            setMessage(state.message);
            router.refresh();
          }}
        >
          <p>{removeConsequence}</p>
        </ConfirmDialog>
      ) : null}
      {confirming === "regenerate" ? (
        <ConfirmDialog
          title="Regenerate recovery codes?"
          action={regenerateCodes}
          fields={{}}
          idempotent="the same recovery codes"
          onClose={() => setConfirming(undefined)}
          onDone={(state, key) => {
            setConfirming(undefined);
            setMessage(state.message);
            const fresh = state.data?.recoveryCodes;
            if (Array.isArray(fresh)) {
              setCodes(fresh.map(String));
              setCodesKey(key);
            }
            router.refresh();
          }}
        >
          <p>Ten new codes replace every old one; the old ones stop working at once.</p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
