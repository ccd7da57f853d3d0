import { randomBytes } from "node:crypto";
import {
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { z } from "zod";
import { db } from "@/lib/db/client";
import { appUrl } from "@/lib/env";
import { Prisma } from "@/lib/generated/prisma/client";
import { answeredOnce, idempotentRequest, personKey, throwIfAnsweredBefore } from "@/lib/idempotency/keys";
import { conflict, invalid, notFound } from "@/lib/refusal";
import type { SecurityEventPerson } from "../security-events";
import { changeFactors } from "./change-factors";
import type { PasskeyView } from "./factors";
import { challengeOf, parseRegistration } from "./passkey-answers";

/**
 * Passkeys (WebAuthn credentials; SPEC.md › Sign-in that guards every credential): registered under
 * a name, used to sign in with no e-mail or password, as the second step after a password, and to
 * `Confirm it's you` (passkey-assertions.ts). Each ceremony's challenge is a `SignInChallenge` row
 * bound to the browser that asked for it (a hash of its `browser-id` cookie) and, where one is
 * expected, to the person; any answer uses it up, right or wrong, and it lasts 5 minutes.
 */
export const passkeyCeremonyLifetimeMs = 5 * 60_000;

/** The ceremonies with a row of their own; the second step's challenge rides on its step's row. */
export type PasskeyCeremony = "passkey-sign-in" | "passkey-register" | "passkey-confirm";

/** The relying party is APP_URL's host: a passkey made for it works on that origin only. */
export function relyingParty(): { id: string; origin: string; name: string } {
  const url = new URL(appUrl());
  return { id: url.hostname.replace(/^\[|\]$/g, ""), origin: url.origin, name: "Token Service" };
}

const nameSchema = z
  .string()
  .trim()
  .min(1, "Name the passkey, e.g. the device or password manager that keeps it.")
  .max(60, "Use at most 60 characters.");

/** `Passkey name`: 1 to 60 characters, trimmed; refused beside the field otherwise. */
export function passkeyName(value: unknown): string {
  const parsed = nameSchema.safeParse(typeof value === "string" ? value : "");
  if (!parsed.success) throw invalid(parsed.error.issues[0]?.message ?? "Name the passkey.", "name");
  return parsed.data;
}

/** Keeps a ceremony's challenge for this browser (and person) for 5 minutes. */
export async function saveCeremony(
  purpose: PasskeyCeremony,
  userId: string | null,
  browserHash: string,
  challenge: string,
  now: Date,
): Promise<void> {
  await db().signInChallenge.create({
    data: {
      id: randomBytes(24).toString("base64url"),
      purpose,
      userId,
      browserHash,
      challenge,
      createdAt: now,
      expiresAt: new Date(now.getTime() + passkeyCeremonyLifetimeMs),
    },
  });
}

/**
 * Uses up the ceremony that issued `challenge`, if it is this browser's (and this person's), of
 * this purpose and still live. True when it was.
 */
export async function claimCeremony(
  purpose: PasskeyCeremony,
  browserHash: string,
  userId: string | null,
  challenge: string,
  now = new Date(),
): Promise<boolean> {
  const { count } = await db().signInChallenge.deleteMany({
    where: { purpose, browserHash, userId, challenge, expiresAt: { gt: now } },
  });
  return count === 1;
}

/** The person's passkeys as the browser's prompts name them. */
export const passkeysOf = (userId: string) =>
  db().passkey.findMany({ where: { userId }, select: { id: true, transports: true }, orderBy: { createdAt: "asc" } });

/**
 * `Add a passkey`, first half: what the browser's `navigator.credentials.create` needs. A
 * discoverable credential where the authenticator can make one; the person's own passkeys excluded,
 * so one authenticator is not added twice.
 */
export async function passkeyRegistrationOptions(
  person: { id: string; email: string; name: string },
  browserHash: string,
  now = new Date(),
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const rp = relyingParty();
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: person.email,
    userDisplayName: person.name,
    userID: new TextEncoder().encode(person.id),
    attestationType: "none",
    excludeCredentials: await passkeysOf(person.id),
    authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
    timeout: passkeyCeremonyLifetimeMs,
  });
  await saveCeremony("passkey-register", person.id, browserHash, options.challenge, now);
  return options;
}

const ceremonyEnded =
  "The passkey could not be added: its request ended (it lasts 5 minutes) or began in another browser. Try again.";

/**
 * `Add a passkey`, second half: the browser's answer verified against this browser's challenge
 * for this person, and the passkey stored. Answers the recovery codes when it turned two-factor on
 * (shown once). With an idempotency key, the same answer sent again after a lost reply gets the
 * first reply, recovery codes included: its ceremony is spent, and a new one would add a second
 * passkey and never show those codes.
 */
export async function addPasskey(
  person: SecurityEventPerson,
  input: { name: unknown; response: unknown },
  browserHash: string,
  now = new Date(),
  options: { idempotencyKey?: string } = {},
): Promise<{ passkey: Pick<PasskeyView, "id" | "name">; recoveryCodes?: string[] }> {
  const name = passkeyName(input.name);
  const response = parseRegistration(input.response);
  const once = options.idempotencyKey
    ? idempotentRequest(personKey(person.id), options.idempotencyKey, {
        operation: "passkey.add",
        name,
        credential: response?.id ?? null,
      })
    : undefined;
  if (once) {
    const replayed = await answeredOnce(
      () => throwIfAnsweredBefore(once, now).then(() => undefined),
      (stored) => stored as { result: Pick<PasskeyView, "id" | "name">; recoveryCodes?: string[] },
    );
    if (replayed) {
      const passkey = { id: replayed.result.id, name: replayed.result.name };
      return replayed.recoveryCodes ? { passkey, recoveryCodes: replayed.recoveryCodes } : { passkey };
    }
  }
  const challenge = response && challengeOf(response.response.clientDataJSON);
  if (!response || !challenge || !(await claimCeremony("passkey-register", browserHash, person.id, challenge, now))) {
    throw invalid(ceremonyEnded);
  }
  const rp = relyingParty();
  const verified = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    // Presence is enough to add one: user verification is asked for, not required of every authenticator.
    requireUserVerification: false,
  }).catch(() => null);
  if (!verified?.verified) throw invalid("The browser's answer could not be verified, so no passkey was added.");
  const { credential } = verified.registrationInfo;
  try {
    const { result, recoveryCodes } = await changeFactors(
      person,
      async (tx) => {
        const passkey = await tx.passkey.create({
          data: {
            id: credential.id,
            userId: person.id,
            name,
            publicKey: credential.publicKey,
            counter: BigInt(credential.counter),
            transports: (credential.transports ?? []).map(String),
            createdAt: now,
          },
          select: { id: true, name: true, createdAt: true, lastUsedAt: true },
        });
        return { result: passkey, events: [{ kind: "passkey_added", name }] };
      },
      now,
      person.id,
      once,
    );
    return recoveryCodes ? { passkey: result, recoveryCodes } : { passkey: result };
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw conflict("This passkey is already added.");
    }
    throw error;
  }
}

/** A passkey's `Remove`: it signs no one in any more; the last second factor gone turns two-factor off. */
export async function removePasskey(person: SecurityEventPerson, passkeyId: string, now = new Date()): Promise<void> {
  await changeFactors(
    person,
    async (tx) => {
      const passkey = await tx.passkey.findFirst({
        where: { id: passkeyId, userId: person.id },
        select: { name: true },
      });
      if (!passkey) throw notFound("There is no such passkey: it may have been removed already.");
      await tx.passkey.deleteMany({ where: { id: passkeyId, userId: person.id } });
      return { result: undefined, events: [{ kind: "passkey_removed", name: passkey.name }] };
    },
    now,
  );
}
