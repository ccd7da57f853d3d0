import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { peerAddressHeader } from "@/lib/client-address";
import { resetEnvCache } from "@/lib/env";
import { eventEmailsSent } from "@/lib/reminders/events";
import { memoryCookieJar } from "@/lib/testing/cookie-jar";
import { makeAgency, testPassword } from "@/lib/testing/fixtures";
import { startTestSmtpServer } from "@/lib/testing/smtp";
import { noteBrowser, passwordStep, secondFactorStep } from "./sign-in";
import { beginTotpSetup, confirmTotpSetup, removeTotp } from "./two-factor/authenticator-app";
import { totpCodeAt } from "./two-factor/totp";

/**
 * SPEC.md › Sign-in that guards every credential: two-factor turned on or off, a recovery code
 * used and a sign-in from a new browser are e-mailed to the person, through a real SMTP server.
 */
let smtp: Awaited<ReturnType<typeof startTestSmtpServer>>;
const savedSmtpUrl = process.env.SMTP_URL;

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  process.env.SMTP_URL = smtp.url;
  resetEnvCache();
});

afterAll(async () => {
  await eventEmailsSent();
  if (savedSmtpUrl === undefined) delete process.env.SMTP_URL;
  else process.env.SMTP_URL = savedSmtpUrl;
  resetEnvCache();
  await smtp.close();
});

const subjectsTo = async (email: string) => {
  await eventEmailsSent();
  return smtp.received.filter((m) => m.to === email).map((m) => m.subject);
};

describe("security e-mails", () => {
  it("tell the person of two-factor on and off, a recovery code used, and a new browser", async () => {
    const { owner } = await makeAgency({ locations: 0 });
    const { secret } = await beginTotpSetup(owner);
    const before = new Date(Date.now() - 60_000);
    const { recoveryCodes = [] } = await confirmTotpSetup(owner.id, totpCodeAt(secret, before), before);
    expect(await subjectsTo(owner.email)).toEqual(["Two-factor authentication is on"]);

    const jar = memoryCookieJar();
    const headers = { [peerAddressHeader]: "198.51.100.77", "user-agent": "Mozilla/5.0 Firefox/140.0" };
    await passwordStep({ email: owner.email, password: testPassword }, headers, jar).catch(() => undefined);
    await secondFactorStep({ code: recoveryCodes[0] }, headers, jar);
    await eventEmailsSent();
    const mail = smtp.received.find((m) => m.to === owner.email && m.subject === "A recovery code was used to sign in");
    expect(mail?.text).toContain("198.51.100.77");
    expect(mail?.text).toContain("9 are left");
    expect(mail?.text).not.toContain(recoveryCodes[0] ?? "none");

    const signedIn = {
      id: owner.id,
      email: owner.email,
      name: owner.name,
      sessionVersion: 0,
      ...{ userAgent: "Mozilla/5.0 Firefox/140.0", address: "198.51.100.77" },
    };
    await noteBrowser({ ...signedIn, browserHash: "first" });
    await noteBrowser({ ...signedIn, browserHash: "another" });
    await removeTotp(owner.id);
    // Sent in the background: in any order.
    expect((await subjectsTo(owner.email)).sort()).toEqual(
      [
        "Two-factor authentication is on",
        "A recovery code was used to sign in",
        "New sign-in to your account",
        "Two-factor authentication is off",
      ].sort(),
    );
    const fresh = smtp.received.find((m) => m.to === owner.email && m.subject === "New sign-in to your account");
    expect(fresh?.text).toContain("Firefox 140 on unknown system, from 198.51.100.77");
  });
});
