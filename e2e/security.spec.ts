import { randomBytes } from "node:crypto";
import { networkInterfaces } from "node:os";
import { e2eBaseUrl, e2ePort, seededOwner } from "./support/env";
import { expect, test } from "./support/test";
import { createAgency, e2ePassword } from "./support/world";

/**
 * Issue 15 through the real production server (scripts/start.ts → scripts/serve.mjs): the client
 * address is the connection's peer whatever the request claims, and no page can be framed.
 *
 * Calls that must come from another machine use this machine's own non-loopback address: the
 * server then sees that address as the peer. Blocks from those calls fall on that address only,
 * so the other specs (from localhost) are not affected.
 */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && !i.internal && i.family === "IPv4")?.address;
const fromOutside = outsideAddress ? `http://${outsideAddress}:${e2ePort}` : "";

const octet = () => randomBytes(1)[0];
/** A client that claims another address on every request, in both headers it could try. */
const forgedHeaders = () => ({
  "x-forwarded-for": `203.0.113.${octet()}, 198.51.100.${octet()}`,
  "x-peer-address": `10.${octet()}.${octet()}.${octet()}`,
});

type SignInOutcome = "signed in" | "invalid" | "throttled";

/** next-auth's credentials sign-in as the login form posts it; the outcome from its answer. */
async function signInOverHttp(
  base: string,
  email: string,
  password: string,
  headers: Record<string, string>,
): Promise<SignInOutcome> {
  const csrf = await fetch(`${base}/api/auth/csrf`, { headers });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookie = csrf.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const answer = await fetch(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { ...headers, cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  // next-auth answers `{url}` (200 signed in, 401 refused), its error code in the url's query.
  const body = (answer.headers.get("content-type") ?? "").includes("json")
    ? ((await answer.json()) as { url?: string })
    : {};
  const url = body.url ?? answer.headers.get("location") ?? "";
  const error = new URL(url, base).searchParams.get("error");
  if (error === "invalid" || error === "throttled") return error;
  expect(error, `unexpected sign-in answer ${answer.status} ${url}`).toBeNull();
  expect(answer.headers.getSetCookie().some((c) => c.startsWith("next-auth.session-token="))).toBe(true);
  return "signed in";
}

test.describe("the client address is the connection's peer", () => {
  test.skip(!outsideAddress, "needs a non-loopback address on this machine");

  test("the operator endpoint refuses another machine, whatever X-Forwarded-For claims", async () => {
    const call = (base: string, headers: Record<string, string> = {}) =>
      fetch(`${base}/api/operator`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer not-the-key", ...headers },
        body: JSON.stringify({ command: "company:list", flags: {} }),
      });
    const outside = await call(fromOutside, { "x-forwarded-for": "127.0.0.1", "x-peer-address": "127.0.0.1" });
    expect(outside.status).toBe(403);
    expect(await outside.json()).toMatchObject({ error: "forbidden", statusCode: 403 });
    // This machine gets as far as the key check.
    const local = await call(e2eBaseUrl);
    expect(local.status).toBe(401);
    expect(await local.json()).toMatchObject({ error: "invalid_token" });
  });

  test("sign-in throttle: a parallel burst with forged X-Forwarded-For, then password spraying", async () => {
    const { owner } = await createAgency();
    // A burst of wrong passwords at one account, each request claiming another address.
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) => signInOverHttp(fromOutside, owner.email, `guess-${i}`, forgedHeaders())),
    );
    expect(burst.filter((o) => o === "invalid").length).toBeLessThanOrEqual(4);
    expect(burst.filter((o) => o === "throttled").length).toBeGreaterThanOrEqual(16);
    // The account is blocked now, from anywhere, for the right password too.
    expect(await signInOverHttp(e2eBaseUrl, owner.email, e2ePassword, {})).toBe("throttled");

    // Spraying: one guess at each of many accounts, from one machine that claims a new address
    // every time. The 20 attempts above count too: 30 in all block the address.
    for (let i = 0; i < 10; i++) {
      await signInOverHttp(
        fromOutside,
        `sprayed-${i}-${randomBytes(4).toString("hex")}@e2e.test`,
        "guess",
        forgedHeaders(),
      );
    }
    expect(await signInOverHttp(fromOutside, seededOwner.email, seededOwner.password, forgedHeaders())).toBe(
      "throttled",
    );
    // The block is on that machine's address, not on the addresses it claimed: localhost still signs in,
    // also when it claims to be the blocked machine.
    expect(
      await signInOverHttp(e2eBaseUrl, seededOwner.email, seededOwner.password, {
        "x-forwarded-for": outsideAddress ?? "",
      }),
    ).toBe("signed in");
  });
});

test.describe("no page can be framed", () => {
  test("every response says frame-ancestors 'none' and X-Frame-Options: DENY", async ({ request }) => {
    for (const path of ["/oauth/chooselocation?client_id=x", "/login", "/", "/settings", "/api/health", "/docs"]) {
      const response = await request.get(path, { maxRedirects: 0 });
      expect(response.headers()["content-security-policy"], path).toContain("frame-ancestors 'none'");
      expect(response.headers()["x-frame-options"], path).toBe("DENY");
    }
  });

  test("a browser does not show the sign-in page in a frame", async ({ page }) => {
    // The page's load event waits for its frame, blocked or not.
    await page.setContent(`<iframe src="${e2eBaseUrl}/login"></iframe>`, { waitUntil: "load" });
    const framed = page.frames().find((f) => f !== page.mainFrame());
    expect(framed).toBeDefined();
    // Blocked: Chromium shows its own error page there, without the form (or with no document at all).
    const passwordFields = await framed!
      .locator("input[type=password]")
      .count()
      .catch(() => 0);
    expect(passwordFields).toBe(0);
  });
});
