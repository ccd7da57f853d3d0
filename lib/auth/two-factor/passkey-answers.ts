import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { z } from "zod";

/**
 * What a browser answers a passkey prompt with (the JSON of `PublicKeyCredential`), read
 * defensively: bounded in size, base64url where WebAuthn says so, its id and rawId the same. A
 * credential id is at most 1023 bytes (WebAuthn § 4).
 */
const base64url = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_-]*$/);
const credentialId = base64url(1400).min(1);
const shared = {
  id: credentialId,
  rawId: credentialId,
  type: z.literal("public-key"),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
};
const assertionSchema = z.object({
  ...shared,
  response: z.object({
    clientDataJSON: base64url(4096),
    authenticatorData: base64url(4096),
    signature: base64url(2048),
    userHandle: base64url(128)
      .nullish()
      .transform((v) => v ?? undefined),
  }),
});
const attestationSchema = z.object({
  ...shared,
  response: z.object({
    clientDataJSON: base64url(4096),
    attestationObject: base64url(16384),
    transports: z.array(z.string().max(32)).max(10).optional(),
  }),
});

/** The largest answer read (JSON text): a browser's is a few kilobytes. */
export const maxPasskeyResponseLength = 32_768;

function parse<S extends z.ZodType<{ id: string; rawId: string }>>(schema: S, raw: unknown): z.infer<S> | null {
  let value = raw;
  if (typeof raw === "string") {
    if (raw.length > maxPasskeyResponseLength) return null;
    try {
      value = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  const parsed = schema.safeParse(value);
  return parsed.success && parsed.data.id === parsed.data.rawId ? parsed.data : null;
}

/** `navigator.credentials.create`'s answer (JSON text or parsed), or null when it is not one. */
export const parseRegistration = (raw: unknown) => parse(attestationSchema, raw) as RegistrationResponseJSON | null;

/** `navigator.credentials.get`'s answer (JSON text or parsed), or null when it is not one. */
export const parseAssertion = (raw: unknown) => parse(assertionSchema, raw) as AuthenticationResponseJSON | null;

/** The challenge the browser signed, read from its clientDataJSON; null when unreadable. */
export function challengeOf(clientDataJSON: string): string | null {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, "base64url").toString("utf8")) as { challenge?: unknown };
    return typeof data.challenge === "string" && data.challenge.length <= 200 ? data.challenge : null;
  } catch {
    return null;
  }
}

/** The credential id an answer names (for throttling by it), or "" when it names none. */
export function credentialIdOf(raw: unknown): string {
  return parseAssertion(raw)?.id.slice(0, 200) ?? "";
}

/** The WebAuthn user handle of a person: their id, so a discoverable passkey names them. */
export const userHandleOf = (userId: string) => Buffer.from(userId, "utf8").toString("base64url");
