import { randomBytes } from "node:crypto";
import { checkCredentials } from "@/lib/accounts/users";
import { clientAddress } from "@/lib/client-address";
import { hashSecret } from "@/lib/crypto/secrets";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { auditSecurityEvent, mailSecurityEvent } from "./security-events";
import { throttledSignIn } from "./throttle";
import { recordRecoveryCodeUse, redeemSecondFactorCode, secondFactorsOf } from "./two-factor/factors";
import { describeUserAgent } from "./user-agent";

/**
 * Signing in (SPEC.md › Sign-in that guards every credential › Sign-in): a right password signs in
 * a person without two-factor at once; a person with two-factor gets a second step first, before
 * any session exists. That step is a row bound to the browser that began it (a hash of its
 * `browser` cookie), lasts 5 minutes, is used once, and its wrong codes are throttled like
 * passwords: per (person, address) and per address, never per person alone.
 */
export const secondStepLifetimeMs = 5 * 60_000;

/** The browser's own long-lived random id (httpOnly): binds sign-in steps to it and tells known browsers. */
export const browserCookie = "browser-id";
/** The second step this browser is in (httpOnly, 5 minutes). */
export const secondStepCookie = "sign-in-step";

/** What the sign-in form says for each way a step can fail; the form maps these codes to sentences. */
export const signInErrors = {
  invalid: "The e-mail address or password is not right. Check both and try again.",
  throttled: "Too many failed sign-ins. For your safety, wait 15 minutes before trying again.",
  "wrong-code": "That code is not right. Enter the 6-digit code from your authenticator app, or a recovery code.",
  "step-expired": "The sign-in step ended (it lasts 5 minutes). Enter your e-mail address and password again.",
  "passkey-failed": "The passkey could not sign you in. Try again, or use another way to sign in.",
} as const;
export type SignInError = keyof typeof signInErrors;

/** The second step is needed: the form shows it (`second-factor-passkey`: the person has a passkey too). */
export const secondStepNeeded = ["second-factor", "second-factor-passkey"] as const;

/** The cookies of the sign-in request: read from its header, written to its answer. */
export interface CookieJar {
  get(name: string): string | undefined;
  set(name: string, value: string, options: { maxAgeSeconds: number }): void;
  delete(name: string): void;
}

/** A signed-in person as next-auth's jwt callback receives them: the session is made from this. */
export interface SignedInUser {
  id: string;
  email: string;
  name: string;
  sessionVersion: number;
  userAgent: string;
  address: string;
  browserHash: string;
}

/** A step refused: next-auth hands `message` to the form as `error`. */
export class SignInRefused extends Error {
  constructor(readonly reason: SignInError | (typeof secondStepNeeded)[number]) {
    super(reason);
  }
}

export type RequestHeaders = Record<string, unknown> | undefined;

/** Where a sign-in comes from: its browser (User-Agent) and client address. */
export function origin(headers: RequestHeaders): { userAgent: string; address: string } {
  const agent = headers?.["user-agent"];
  return {
    userAgent: typeof agent === "string" ? agent.slice(0, 400) : "",
    address: clientAddress(headers, env().TRUSTED_PROXY_HOPS),
  };
}

/** This browser's id hashed, giving the browser an id first when it has none. */
export function browserHashOf(jar: CookieJar): string {
  let id = jar.get(browserCookie);
  if (!id || !/^[A-Za-z0-9_-]{22,64}$/.test(id)) {
    id = randomBytes(24).toString("base64url");
    jar.set(browserCookie, id, { maxAgeSeconds: 400 * 24 * 60 * 60 });
  }
  return hashSecret(`browser:${id}`);
}

/** Step one: e-mail and password. */
export async function passwordStep(
  credentials: { email?: unknown; password?: unknown },
  headers: RequestHeaders,
  jar: CookieJar,
  now = new Date(),
): Promise<SignedInUser> {
  const email = String(credentials.email ?? "").slice(0, 254);
  const password = String(credentials.password ?? "").slice(0, 200);
  const from = origin(headers);
  const result = await throttledSignIn(email, from.address, () => checkCredentials(email, password));
  if (!result.ok) throw new SignInRefused(result.reason);
  const { actor } = result;
  const browserHash = browserHashOf(jar);
  const factors = await secondFactorsOf(actor.id);
  if (factors.on) {
    const id = randomBytes(24).toString("base64url");
    await db().signInChallenge.create({
      data: {
        id,
        purpose: "second-factor",
        userId: actor.id,
        browserHash,
        createdAt: now,
        expiresAt: new Date(now.getTime() + secondStepLifetimeMs),
      },
    });
    jar.set(secondStepCookie, id, { maxAgeSeconds: secondStepLifetimeMs / 1000 });
    throw new SignInRefused(factors.passkeys.length ? "second-factor-passkey" : "second-factor");
  }
  return {
    id: actor.id,
    email: actor.email,
    name: actor.name,
    sessionVersion: actor.sessionVersion,
    ...from,
    browserHash,
  };
}

/** The person whose second step this browser is in, or null (none, another browser's, or past its 5 minutes). */
export async function pendingSecondStep(
  jar: CookieJar,
  now = new Date(),
): Promise<{ challengeId: string; userId: string } | null> {
  const id = jar.get(secondStepCookie);
  const browser = jar.get(browserCookie);
  if (!id || !browser || id.length > 100) return null;
  const row = await db().signInChallenge.findUnique({ where: { id } });
  if (row?.purpose !== "second-factor" || !row.userId || row.expiresAt <= now) return null;
  if (row.browserHash !== hashSecret(`browser:${browser}`)) return null;
  return { challengeId: row.id, userId: row.userId };
}

/** Step two: a code from the authenticator app, or a recovery code. */
export async function secondFactorStep(
  credentials: { code?: unknown },
  headers: RequestHeaders,
  jar: CookieJar,
  now = new Date(),
): Promise<SignedInUser> {
  const code = String(credentials.code ?? "").slice(0, 40);
  const from = origin(headers);
  const step = await pendingSecondStep(jar, now);
  if (!step) throw new SignInRefused("step-expired");
  const user = await db().user.findFirst({
    where: { id: step.userId, removedAt: null },
    select: { id: true, email: true, name: true, sessionVersion: true, companyId: true },
  });
  if (!user) throw new SignInRefused("step-expired");
  // Its own counter per (person, address), sharing the address's with passwords.
  const result = await throttledSignIn(`second-factor:${user.email}`, from.address, () =>
    redeemSecondFactorCode(user.id, code, now),
  );
  if (!result.ok) throw new SignInRefused(result.reason === "invalid" ? "wrong-code" : "throttled");
  await finishSecondStep(step.challengeId, jar);
  if (result.actor.via === "recovery-code") await recordRecoveryCodeUse(user.id, from.address, result.actor.left, now);
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    sessionVersion: user.sessionVersion,
    ...from,
    browserHash: browserHashOf(jar),
  };
}

/** The step is used: gone from the database and the browser. */
export async function finishSecondStep(challengeId: string, jar: CookieJar): Promise<void> {
  await db().signInChallenge.deleteMany({ where: { id: challengeId } });
  jar.delete(secondStepCookie);
}

/**
 * A session begins: a browser the person has not signed in from before is a security event
 * (audited and e-mailed), except at their very first sign-in, when every browser is new.
 */
export async function noteBrowser(user: SignedInUser, now = new Date()): Promise<void> {
  const known = await db().knownBrowser.findMany({
    where: { userId: user.id },
    select: { browserHash: true },
    take: 1000,
  });
  if (known.some((k) => k.browserHash === user.browserHash)) return;
  await db().knownBrowser.createMany({
    data: [{ userId: user.id, browserHash: user.browserHash, firstSeenAt: now }],
    skipDuplicates: true,
  });
  if (known.length === 0) return;
  const person = await db().user.findUnique({
    where: { id: user.id },
    select: { id: true, companyId: true, email: true },
  });
  if (!person) return;
  const event = { kind: "sign_in_new_browser" as const, ...describeUserAgent(user.userAgent), address: user.address };
  await db().$transaction((tx) => auditSecurityEvent(tx, person, event));
  mailSecurityEvent(person, event, now);
}

/** Deletes up to `batch` sign-in steps past their lifetime. */
export async function pruneSignInChallenges(now = new Date(), batch = 100): Promise<number> {
  return db().$executeRaw`
    DELETE FROM "SignInChallenge" WHERE "id" IN (
      SELECT "id" FROM "SignInChallenge" WHERE "expiresAt" < ${now.toISOString()}::timestamp(3) LIMIT ${batch})`;
}
