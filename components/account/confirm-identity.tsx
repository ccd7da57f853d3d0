"use client";

import { type PublicKeyCredentialRequestOptionsJSON, startAuthentication } from "@simplewebauthn/browser";
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
} from "react";
import { Modal } from "@/components/private-integrations/modal";
import type { FormAction } from "@/components/private-integrations/types";
import { useDiscardChanges } from "@/components/ui/discard-changes";
import { FormMessage, InputField } from "@/components/ui/field";
import { buttonClass } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";

/**
 * `Confirm it's you` (SPEC.md › Sign-in that guards every credential): an action that shows or
 * changes a credential answers `confirmIdentity` when the session's last authentication is older
 * than 10 minutes, having changed nothing. `useGuardedAction` then opens this dialog; once the
 * person confirms, the same form data is sent again, so nothing is retyped. The server decides;
 * this only asks.
 */
type Ask = () => Promise<boolean>;

const AskContext = createContext<Ask | null>(null);

export const notConfirmed = "Not confirmed, so nothing was changed.";

/** `action`, asking `Confirm it's you` and sending the same data again when the server needs it. */
export function useGuardedAction<A extends FormAction | undefined>(action: A): A {
  const ask = useContext(AskContext);
  return useMemo(() => {
    if (!action || !ask) return action;
    const guarded: FormAction = async (prev, formData) => {
      const result = await action(prev, formData);
      if (!result.confirmIdentity) return result;
      if (!(await ask())) return { error: notConfirmed };
      return action(prev, formData);
    };
    return guarded as A;
  }, [action, ask]);
}

/** Every action of a record of actions, guarded (the Private Integrations screen's lifecycle actions). */
export function useGuardedActions<T extends object>(actions: T): T {
  const ask = useContext(AskContext);
  return useMemo(() => {
    if (!ask) return actions;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(actions)) {
      out[key] =
        typeof value === "function"
          ? async (prev: ActionState, formData: FormData) => {
              const result = (await (value as FormAction)(prev, formData)) as ActionState;
              if (!result?.confirmIdentity) return result;
              if (!(await ask())) return { error: notConfirmed };
              return (value as FormAction)(prev, formData);
            }
          : value;
    }
    return out as T;
  }, [actions, ask]);
}

export function ConfirmIdentityProvider({
  confirm,
  method,
  passkeyOptions,
  children,
}: {
  confirm: FormAction;
  method: FormAction;
  /** The options of the browser's passkey prompt (`data.options`), for `Use a passkey`. */
  passkeyOptions: FormAction;
  children: ReactNode;
}) {
  const [asking, setAsking] = useState<{ resolve: (confirmed: boolean) => void } | null>(null);
  const ask = useCallback<Ask>(() => new Promise((resolve) => setAsking({ resolve })), []);
  const close = (confirmed: boolean) => {
    asking?.resolve(confirmed);
    setAsking(null);
  };
  return (
    <AskContext.Provider value={ask}>
      {children}
      {asking ? (
        <ConfirmIdentityDialog confirm={confirm} method={method} passkeyOptions={passkeyOptions} onClose={close} />
      ) : null}
    </AskContext.Provider>
  );
}

function ConfirmIdentityDialog({
  confirm,
  method,
  passkeyOptions,
  onClose,
}: {
  confirm: FormAction;
  method: FormAction;
  passkeyOptions: FormAction;
  onClose: (confirmed: boolean) => void;
}) {
  const titleId = useId();
  const [asks, setAsks] = useState<"code" | "password">();
  const [hasPasskey, setHasPasskey] = useState(false);
  const [error, setError] = useState<string>();
  const [fieldError, setFieldError] = useState<string>();
  const [pending, setPending] = useState(false);
  const confirmed = useRef(false);
  const discard = useDiscardChanges(() => onClose(false));

  // What to ask is read when the dialog opens, so pages do not load it on every render.
  useEffect(() => {
    let live = true;
    method({}, new FormData()).then(
      (state) => {
        if (!live) return;
        setAsks(state.data?.method === "code" ? "code" : "password");
        setHasPasskey(state.data?.passkey === true);
      },
      () => live && setAsks("password"),
    );
    return () => {
      live = false;
    };
  }, [method]);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    await answer(new FormData(event.currentTarget));
  }

  async function withPasskey() {
    setPending(true);
    setError(undefined);
    setFieldError(undefined);
    const form = new FormData();
    try {
      const begun = await passkeyOptions({}, new FormData());
      const options = begun.data?.options as PublicKeyCredentialRequestOptionsJSON | undefined;
      if (!options) {
        setError(begun.error ?? "Could not ask for your passkey. Try again.");
        setPending(false);
        return;
      }
      form.set("passkey", JSON.stringify(await startAuthentication({ optionsJSON: options })));
    } catch {
      setError(
        "No passkey was used: the browser's prompt was closed, or it offers none here. Try again, or enter a code.",
      );
      setPending(false);
      return;
    }
    await answer(form);
  }

  async function answer(form: FormData) {
    setPending(true);
    setError(undefined);
    setFieldError(undefined);
    try {
      const state = await confirm({}, form);
      if (state.ok) {
        confirmed.current = true;
        onClose(true);
        return;
      }
      const message = state.fieldErrors?.code ?? state.fieldErrors?.password;
      if (message) setFieldError(message);
      else setError(state.error ?? "Could not confirm. Try again.");
    } catch {
      setError("The request did not reach the server. Check the connection and try again.");
    }
    setPending(false);
  }

  return (
    <Modal
      labelledBy={titleId}
      onClose={() => onClose(confirmed.current)}
      preventEscape={pending}
      onEscape={discard.requestClose}
    >
      <form ref={discard.form} onSubmit={submit} className="space-y-4 p-6" noValidate>
        <h2 id={titleId} className="text-lg font-semibold">
          Confirm it's you
        </h2>
        <p className="text-sm text-slate-600">
          This shows or changes a credential, and you last signed in or confirmed more than 10 minutes ago.
          {asks === "code"
            ? hasPasskey
              ? " Use your passkey, or enter the code from your authenticator app (or a recovery code)."
              : " Enter the code from your authenticator app (or a recovery code)."
            : asks === "password"
              ? " Enter your password."
              : ""}
        </p>
        <FormMessage error={error} />
        {asks === "code" ? (
          <InputField
            id={`${titleId}-code`}
            label="Authentication code"
            name="code"
            autoComplete="one-time-code"
            inputMode="numeric"
            error={fieldError}
            autoFocus
            required
          />
        ) : asks === "password" ? (
          <InputField
            id={`${titleId}-password`}
            label="Password"
            name="password"
            type="password"
            autoComplete="current-password"
            error={fieldError}
            autoFocus
            required
          />
        ) : (
          <p className="text-sm text-slate-600" role="status">
            Loading…
          </p>
        )}
        {asks === "code" && hasPasskey ? (
          <button type="button" className={buttonClass("secondary")} onClick={withPasskey} disabled={pending}>
            Use a passkey
          </button>
        ) : null}
        <div className="flex flex-wrap justify-end gap-2">
          <button type="button" className={buttonClass("secondary")} onClick={discard.requestClose} disabled={pending}>
            Cancel
          </button>
          <button type="submit" className={buttonClass("primary")} disabled={pending || !asks}>
            {pending ? "Confirming…" : "Confirm"}
          </button>
        </div>
      </form>
      {discard.question}
    </Modal>
  );
}
