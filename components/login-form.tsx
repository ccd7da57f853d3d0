"use client";

import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { safeReturnPath } from "@/lib/auth/same-origin";
import { FormMessage, InputField } from "./ui/field";
import { buttonClass } from "./ui/submit-button";

const messages: Record<string, string> = {
  invalid: "The e-mail address or password is not right. Check both and try again.",
  throttled: "Too many failed sign-ins. For your safety, wait 15 minutes before trying again.",
};

export function LoginForm({ callbackUrl }: { callbackUrl?: string }) {
  const router = useRouter();
  const [error, setError] = useState<string>();
  const [pending, setPending] = useState(false);

  async function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(undefined);
    try {
      const result = await signIn("credentials", {
        redirect: false,
        email: String(form.get("email") ?? ""),
        password: String(form.get("password") ?? ""),
      });
      if (result?.ok && !result.error) {
        // A sign-in must never send the browser to another origin (the same rule as the server's).
        router.replace(safeReturnPath(callbackUrl, window.location.origin));
        router.refresh();
        return;
      }
      setError(messages[result?.error ?? ""] ?? messages.invalid);
    } catch {
      setError("We could not reach the server. Check your connection and try again.");
    }
    setPending(false);
  }

  return (
    <form onSubmit={onSubmit} className="space-y-5" noValidate>
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
  );
}
