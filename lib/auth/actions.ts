import { redirect } from "next/navigation";
import type { z } from "zod";
import type { Actor } from "@/lib/accounts/permissions";
import { getSignedIn } from "@/lib/auth/session";
import { isRecentlyAuthenticated } from "@/lib/auth/sessions";
import { describeError, log } from "@/lib/log";
import { fieldErrorsOfRefusal, Refusal } from "@/lib/refusal";

/** What a server action hands back to its form (`useActionState`). */
export type ActionState = {
  ok?: boolean;
  /**
   * The action needs a recent authentication (`Confirm it's you`): nothing was changed; the form
   * asks the person to confirm, then sends the same data again.
   */
  confirmIdentity?: boolean;
  message?: string;
  error?: string;
  fieldErrors?: Record<string, string>;
  data?: Record<string, unknown>;
  /** What was typed, handed back after a refusal so the form keeps it (never passwords or tokens). */
  values?: Record<string, string>;
};

const secretField = /pass|secret|token/i;

/** The typed text fields of a form, minus anything secret, for re-filling it after a refusal. */
export function echoValues(input: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(input)) if (typeof v === "string" && !secretField.test(k)) out[k] = v;
  return out;
}

/**
 * FormData → plain object: a key given once is a string, given several times an array, and a
 * key ending in [] is always an array (checkbox groups).
 */
export function formDataToObject(formData: FormData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [rawKey, value] of formData.entries()) {
    if (rawKey.startsWith("$ACTION")) continue;
    if (typeof value !== "string") continue;
    const isList = rawKey.endsWith("[]");
    const key = isList ? rawKey.slice(0, -2) : rawKey;
    const existing = out[key];
    if (isList || existing !== undefined) {
      out[key] = Array.isArray(existing) ? [...existing, value] : existing === undefined ? [value] : [existing, value];
    } else {
      out[key] = value;
    }
  }
  return out;
}

export function fieldErrorsOf(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.map(String).join(".") : "form";
    out[key] ??= issue.message;
  }
  return out;
}

/** Maps what a domain rule threw onto the form; anything unexpected is logged, never shown. */
export function actionError(error: unknown): ActionState {
  if (error instanceof Refusal) {
    return error.field ? { fieldErrors: fieldErrorsOfRefusal(error) } : { error: error.message };
  }
  log.error("server action failed", { cause: describeError(error) });
  return { error: "Something went wrong on our side. Nothing was changed; try again." };
}

/**
 * Who may act: the signed-in person, or the refusal every action gives (signed out, or a reset
 * password not yet replaced, unless the action is the one that replaces it).
 */
export async function actingPerson(
  options: { whilePasswordMustChange?: boolean; whileTwoFactorMissing?: boolean; confirmIdentity?: boolean } = {},
  now = new Date(),
): Promise<{ actor: Actor; sessionId: string } | { error: string; confirmIdentity?: true }> {
  const signedIn = await getSignedIn();
  if (!signedIn) return { error: "Your session has ended. Sign in again." };
  if (signedIn.mustChangePassword && !options.whilePasswordMustChange) {
    return { error: "Choose your own password first, in Settings › Account." };
  }
  if (signedIn.mustSetUpTwoFactor && !options.whileTwoFactorMissing) {
    return { error: "Your agency requires two-factor authentication: set it up first, in Settings › Account." };
  }
  if (options.confirmIdentity && !isRecentlyAuthenticated(signedIn.session, now)) {
    return { error: confirmIdentityMessage, confirmIdentity: true };
  }
  return { actor: signedIn.actor, sessionId: signedIn.session.id };
}

/** Said when a guarded action is refused for want of a recent authentication. */
export const confirmIdentityMessage =
  "Confirm it's you: this needs you to have signed in or confirmed in the last 10 minutes. Nothing was changed.";

/** How one action departs from the common way of answering its form. */
export interface ActionOptions<S extends z.ZodType> {
  /** Let a person who must replace a reset password run it (the password change itself). */
  whilePasswordMustChange?: boolean;
  /** Let a person whose agency requires two-factor run it before they have set it up (the set-up itself). */
  whileTwoFactorMissing?: boolean;
  /**
   * Shows or changes a credential: needs an authentication in the last 10 minutes (SPEC.md ›
   * Confirm it's you); otherwise nothing runs and the form is told to confirm.
   */
  confirmIdentity?: boolean;
  /** Said instead of field errors when the form does not parse: for forms of hidden fields only. */
  unreadable?: string;
  /** Added to a refusal of the person (signed out, password to replace): what to do after it. */
  nextStep?: string;
  /** Handed back with a refusal besides the typed text, e.g. ticked boxes (`echoValues` keeps strings only). */
  keep?: (input: z.infer<S>) => Record<string, unknown>;
}

/** What an action's `run` may answer: a state for its form, or where to send the browser. */
export type ActionResult = ActionState | { redirectTo: string } | undefined;

type Run<S extends z.ZodType, Who> = (
  input: z.infer<S>,
  who: Who,
  raw: Record<string, unknown>,
  sessionId: string,
) => Promise<ActionResult>;

/**
 * The form half of every action: parses the form with `schema`, calls `run`, turns refusals into
 * messages beside the fields. A redirect happens after the mapping, so it is never mistaken for an
 * error. Used alone only by actions that need no person (Cancel on the install screen).
 */
export function formAction<S extends z.ZodType>(
  schema: S,
  run: Run<S, undefined>,
  options: ActionOptions<S> = {},
): (prev: ActionState, formData: FormData) => Promise<ActionState> {
  return async (_prev, formData) => {
    const raw = formDataToObject(formData);
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      if (options.unreadable) return { error: options.unreadable };
      return { fieldErrors: fieldErrorsOf(parsed.error), values: echoValues(raw) };
    }
    let result: ActionResult;
    try {
      result = await run(parsed.data, undefined, raw, "");
    } catch (error) {
      return { ...actionError(error), values: echoValues(raw), ...options.keep?.(parsed.data) };
    }
    if (result && "redirectTo" in result) redirect(result.redirectTo);
    return result ?? { ok: true };
  };
}

/**
 * A server action for a signed-in person: checks the session on the server, then `formAction`.
 * A person who must change a reset password can run only the actions that say so
 * (`whilePasswordMustChange`).
 */
export function actorAction<S extends z.ZodType>(
  schema: S,
  run: Run<S, Actor>,
  options: ActionOptions<S> = {},
): (prev: ActionState, formData: FormData) => Promise<ActionState> {
  return async (prev, formData) => {
    const person = await actingPerson(options);
    if ("error" in person) {
      if (person.confirmIdentity) return person;
      return options.nextStep ? { error: `${person.error} ${options.nextStep}` } : person;
    }
    return formAction(
      schema,
      (input, _none, raw) => run(input, person.actor, raw, person.sessionId),
      options,
    )(prev, formData);
  };
}
