/**
 * What a domain rule says when it refuses, in the domain's words and no HTTP ones. Server actions
 * show `message` (beside `field` when it names one); the HTTP API maps `kind` onto SPEC.md's error
 * codes in one place (lib/api/refusal-to-http.ts) and adds `data` to the body; the CLI prints `message`.
 */
export type RefusalKind = "invalid" | "not_found" | "forbidden" | "conflict";

export class Refusal extends Error {
  override name = "Refusal";
  constructor(
    readonly kind: RefusalKind,
    message: string,
    readonly field?: string,
    /** What the caller needs to act on the refusal, e.g. the id of the record a conflict is with. */
    readonly data: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

export const invalid = (message: string, field?: string) => new Refusal("invalid", message, field);
export const notFound = (message: string) => new Refusal("not_found", message);
export const forbidden = (message: string) => new Refusal("forbidden", message);
export const conflict = (message: string, field?: string, data?: Record<string, unknown>) =>
  new Refusal("conflict", message, field, data);

/**
 * Several fields refused at once (a form shows every invalid field in one go): the first one is
 * the error's own field and message, all of them are in `data.fieldErrors`.
 */
export function invalidFields(fieldErrors: Record<string, string>): Refusal {
  const [field, message] = Object.entries(fieldErrors)[0] ?? ["form", "Check the form."];
  return new Refusal("invalid", message, field, { fieldErrors });
}

/**
 * Runs every check, one after the other (a check may wait, e.g. on the database), collecting the
 * field errors they throw; throws them all together, if any.
 */
export async function checkAllFields(checks: (() => unknown)[]): Promise<void> {
  const fieldErrors: Record<string, string> = {};
  for (const check of checks) {
    try {
      await check();
    } catch (error) {
      if (!(error instanceof Refusal) || !error.field) throw error;
      Object.assign(fieldErrors, fieldErrorsOfRefusal(error));
    }
  }
  if (Object.keys(fieldErrors).length) throw invalidFields(fieldErrors);
}

/** The field errors a Refusal carries: all of them when several were collected, else its own. */
export function fieldErrorsOfRefusal(error: Refusal): Record<string, string> {
  const many = error.data.fieldErrors;
  if (many && typeof many === "object") return { ...(many as Record<string, string>) };
  return error.field ? { [error.field]: error.message } : {};
}
