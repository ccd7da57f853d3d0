import { expect } from "vitest";
import { Refusal } from "@/lib/refusal";

/** Awaits `promise`, expects it to be refused with a `Refusal`, and returns that for further checks. */
export async function refusal(promise: Promise<unknown>): Promise<Refusal> {
  const error = await promise.then(
    () => undefined,
    (e) => e,
  );
  expect(error).toBeInstanceOf(Refusal);
  return error as Refusal;
}

/** How a sign-in attempt ended: "signed in", or the refusal's message. */
export const signInOutcome = (attempt: Promise<unknown>): Promise<string> =>
  attempt.then(
    () => "signed in",
    (error: Error) => error.message,
  );
