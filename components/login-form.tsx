"use client";

import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { startAuthentication } from "@simplewebauthn/browser";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { safeReturnPath } from "@/lib/auth/same-origin";
import { PasskeyIpNote } from "./account/passkey-ip-note";
import { FormMessage, InputField } from "./ui/field";
import { buttonClass } from "./ui/submit-button";

// The sentences of lib/auth/sign-in.ts's signInErrors (that module is server-only).
const messages: Record<string, string> = {
  invalid: "The e-mail address or password is not right. Check both and try again.",
  throttled: "Too many failed sign-ins. For your safety, wait 15 minutes before trying again.",
  "wrong-code": "That code is not right. Enter the 6-digit code from your authenticator app, or a recovery code.",
  "step-expired": "The sign-in step ended (it lasts 5 minutes). Enter your e-mail address and password again.",
  "passkey-failed": "The passkey could not sign you in. Try again, or use another way to sign in.",
};
const noPasskeyUsed =
  "No passkey was used: the prompt was closed, or this browser has no passkey for this site. Try again, or use another way to sign in.";
const unreachable = "We could not reach the server. Check your connection and try again.";

/** The server action that gives the browser's passkey prompt its options (app/login/actions.ts). */
export type PasskeyOptionsAction = (
  flow: string,
) => Promise<{ options: PublicKeyCredentialRequestOptionsJSON } | { error: string }>;

type Step = { kind: "password" } | { kind: "second-factor"; passkey: boolean };

/**
 * `/login`: e-mail and password, then, for a person with two-factor, the second step
 * (`Authentication code`, `Verify`, `Use a passkey`) before any session exists. `Sign in with a
 * passkey` needs neither e-mail nor password: the passkey names the person.
 */
export function LoginForm({
  callbackUrl,
  passkeyOptions,
  appOrigin,
}: {
  callbackUrl?: string;
  passkeyOptions: PasskeyOptionsAction;
  appOrigin: string;
}) {
  const router = useRouter();
  const [step, setStep] = useState<Step>({ kind: "password" });
  const [error, setError] = useState<string>();
  const [pending, setPending] = useState(false);

  function signedIn() {
    // A sign-in must never send the browser to another origin (the same rule as the server's).
    router.replace(safeReturnPath(callbackUrl, window.location.origin));
    router.refresh();
  }

  async function attempt(provider: string, fields: Record<string, string>) {
    setPending(true);
    setError(undefined);
    try {
      const result = await signIn(provider, { redirect: false, ...fields });
      if (result?.ok && !result.error) return signedIn();
      const code = result?.error ?? "";
      if (code === "second-factor" || code === "second-factor-passkey") {
        setStep({ kind: "second-factor", passkey: code === "second-factor-passkey" });
      } else {
        if (code === "step-expired") setStep({ kind: "password" });
        setError(messages[code] ?? messages.invalid);
      }
    } catch {
      setError(unreachable);
    }
    setPending(false);
  }

  async function withPasskey(flow: "sign-in" | "second-factor") {
    setPending(true);
    setError(undefined);
    let response: string;
    try {
      const answer = await passkeyOptions(flow);
      if ("error" in answer) {
        if (answer.error === "step-expired") setStep({ kind: "password" });
        setError(messages[answer.error] ?? messages["passkey-failed"]);
        setPending(false);
        return;
      }
      try {
        response = JSON.stringify(await startAuthentication({ optionsJSON: answer.options }));
      } catch {
        setError(noPasskeyUsed);
        setPending(false);
        return;
      }
    } catch {
      setError(unreachable);
      setPending(false);
      return;
    }
    await attempt("passkey", { flow, response });
  }

  if (step.kind === "second-factor") {
    return (
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          void attempt("second-factor", { code: String(form.get("code") ?? "") });
        }}
        className="space-y-5"
        noValidate
      >
        <p className="text-sm text-slate-700">
          {step.passkey
            ? "Use your passkey, or enter the 6-digit code from your authenticator app. Lost them? Enter one of your recovery codes."
            : "Enter the 6-digit code from your authenticator app. Lost it? Enter one of your recovery codes."}
        </p>
        <FormMessage error={error} />
        <InputField
          id="code"
          label="Authentication code"
          name="code"
          autoComplete="one-time-code"
          inputMode="text"
          autoFocus
          required
        />
        <button type="submit" disabled={pending} className={`${buttonClass("primary")} w-full`}>
          {pending ? "Verifying…" : "Verify"}
        </button>
        {step.passkey ? (
          <>
            <button
              type="button"
              disabled={pending}
              onClick={() => void withPasskey("second-factor")}
              className={`${buttonClass("secondary")} w-full`}
            >
              Use a passkey
            </button>
            <PasskeyIpNote appOrigin={appOrigin} />
          </>
        ) : null}
        <button
          type="button"
          onClick={() => {
            setError(undefined);
            setStep({ kind: "password" });
          }}
          className="w-full text-center text-sm text-slate-600 underline"
        >
          Start again
        </button>
      </form>
    );
  }

  return (
    <div className="space-y-5">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          void attempt("credentials", {
            email: String(form.get("email") ?? ""),
            password: String(form.get("password") ?? ""),
          });
        }}
        className="space-y-5"
        noValidate
      >
        <FormMessage error={error} />
        <InputField id="email" label="Email" name="email" type="email" autoComplete="username" required />
        <InputField
          id="password"
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
        />
        <button type="submit" disabled={pending} className={`${buttonClass("primary")} w-full`}>
          {pending ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <div className="flex items-center gap-3 text-xs text-slate-500" aria-hidden="true">
        <span className="h-px flex-1 bg-slate-200" />
        or
        <span className="h-px flex-1 bg-slate-200" />
      </div>
      <button
        type="button"
        disabled={pending}
        onClick={() => void withPasskey("sign-in")}
        className={`${buttonClass("secondary")} w-full`}
      >
        Sign in with a passkey
      </button>
      <PasskeyIpNote appOrigin={appOrigin} />
    </div>
  );
}
