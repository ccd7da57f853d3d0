import { randomBytes } from "node:crypto";
import { e2eBaseUrl } from "./support/env";
import { answerCallback, createApp, installApp } from "./support/install";
import { expect, test } from "./support/test";
import { createSubAccountUser, signIn } from "./support/world";

/**
 * The API that tokens unlock, over real HTTP on the production build: a Location token from a
 * real install, both trailing-slash forms without a redirect, the 101st request, /openapi.json
 * and the /docs page.
 */

const version = { Version: "2021-07-28" };

test("a Location token creates and reads a contact, with and without trailing slashes, until the rate limit", async ({
  page,
  request,
}) => {
  const { agency, locationId, user } = await createSubAccountUser();
  const app = await createApp(agency.companyId, { scopes: "locations.readonly contacts.write contacts.readonly" });
  await answerCallback(page);
  await signIn(page, user.email);
  const { access_token } = await installApp(page, request, app, "Location");
  const headers = { ...version, Authorization: `Bearer ${access_token}` };

  const contact = (email: string) => ({
    firstName: "Ada",
    lastName: "Lovelace",
    email,
    phone: "+14155550123",
    locationId,
  });
  let contactId = "";
  for (const path of ["/contacts/", "/contacts"]) {
    const created = await request.post(path, {
      headers,
      data: contact(`ada-${randomBytes(4).toString("hex")}@example.com`),
      maxRedirects: 0,
    });
    expect(created.status(), path).toBe(201);
    expect(created.headers()["x-ratelimit-max"]).toBe("100");
    contactId = (await created.json()).contact.id;
  }
  for (const path of [
    `/contacts/${contactId}`,
    `/contacts/${contactId}/`,
    `/locations/${locationId}`,
    `/locations/${locationId}/`,
  ]) {
    const answer = await request.get(path, { headers, maxRedirects: 0 });
    expect(answer.status(), path).toBe(200);
    expect(answer.headers()["x-trace-id"]).toBeTruthy();
  }
  const duplicate = await request.post("/contacts/", { headers, data: contact("dup@example.com") });
  expect(duplicate.status()).toBe(201);
  const again = await request.post("/contacts/", { headers, data: contact("dup@example.com") });
  expect(again.status()).toBe(409);
  expect((await again.json()).contactId).toBe((await duplicate.json()).contact.id);

  const unauthenticated = await request.post("/contacts/", { headers: version, data: {}, maxRedirects: 0 });
  expect(unauthenticated.status()).toBe(401);
  expect(unauthenticated.headers()["www-authenticate"]).toMatch(/^Bearer .*error="invalid_token"/);

  // Limits count in fixed 10-second windows: start at the beginning of a fresh one (server and test
  // share this machine's clock), send the 100 allowed requests at once, then the 101st. On a machine
  // so loaded that the burst outlasts the window, try again in the next one. Sent with node's fetch:
  // Playwright's request context holds a burst this size back in steps of its sockets' 5-second
  // keep-alive, which alone outlasts a window.
  const location = `${e2eBaseUrl}/locations/${locationId}`;
  let allowed: number[] = [];
  let refused = await fetch(location, { headers });
  for (let attempt = 0; attempt < 3; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 10_000 - (Date.now() % 10_000) + 50));
    const windowStart = Math.floor(Date.now() / 10_000);
    allowed = await Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(location, { headers }).then(async (answer) => {
          await answer.arrayBuffer();
          return answer.status;
        }),
      ),
    );
    refused = await fetch(location, { headers });
    if (Math.floor(Date.now() / 10_000) === windowStart) break;
  }
  const retryAfter = refused.headers.get("retry-after") ?? "";
  expect(allowed.every((status) => status === 200)).toBe(true);
  expect(refused.status).toBe(429);
  expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
  expect(((await refused.json()) as { error: string }).error).toBe("rate_limited");
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
});

test("/openapi.json and the /docs reference", async ({ page, request }) => {
  const spec = await request.get("/openapi.json");
  expect(spec.status()).toBe(200);
  const doc = await spec.json();
  expect(doc.openapi).toBe("3.1.0");
  expect(Object.keys(doc.paths)).toContain("/contacts/");

  const docs = await page.goto("/docs");
  expect(docs?.status()).toBe(200);
  expect(docs?.headers()["x-trace-id"]).toBeTruthy();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(doc.info.title);
  await expect(page.getByRole("heading", { name: "Errors" })).toBeVisible();
  await expect(page.getByRole("cell", { name: "insufficient_scope", exact: true })).toBeVisible();
  await expect(page.getByRole("region", { name: "POST /contacts/" })).toContainText("contacts.write");
  await expect(page.locator("script[src^='http']")).toHaveCount(0);
});

test("input Next.js itself would answer with a 500 gets SPEC.md's 400 body and a trace id", async ({ request }) => {
  const expectRefusal = async (response: Awaited<ReturnType<typeof request.get>>, description: RegExp) => {
    expect(response.status(), response.url()).toBe(400);
    const body = (await response.json()) as { error_description: string };
    expect(body).toMatchObject({
      error: "invalid_request",
      statusCode: 400,
      traceId: response.headers()["x-trace-id"],
    });
    expect(body.error_description).toMatch(description);
  };
  // A broken percent-encoding in the path, on API routes, screens and unknown paths alike.
  for (const path of ["/locations/%E0%A4%A", "/contacts/%C0%AF", "/settings/%ZZ", "/%ZZ"]) {
    await expectRefusal(await request.get(path, { headers: version }), /percent-encoding/);
  }
  // A form POST to a screen whose body is not a form.
  await expectRefusal(
    await request.post("/oauth/chooselocation", {
      headers: { "content-type": "multipart/form-data; boundary=xyz" },
      data: Buffer.from("garbage"),
    }),
    /form body could not be read/,
  );
  // next-auth: a body it cannot parse, and an action it does not have.
  await expectRefusal(
    await request.post("/api/auth/callback/credentials", {
      headers: { "content-type": "application/json" },
      // A Buffer: Playwright would JSON-encode a string, making it valid.
      data: Buffer.from("{broken"),
    }),
    /could not be read/,
  );
  await expectRefusal(await request.get("/api/auth/bogus"), /not supported/);
  for (const path of ["/login", "/api/auth/csrf"]) {
    expect((await request.get(path)).headers()["x-trace-id"]).toMatch(/^[0-9a-f-]{36}$/);
  }
  // An unknown server action: Next.js refuses it (4xx) and logs it, without a stack trace (checked
  // over the whole server log after the suite).
  const action = await request.post("/login", {
    headers: { "next-action": "abcdefabcdefabcdefabcdefabcdefabcdefabcd", "content-type": "text/plain" },
    data: "[]",
  });
  expect(action.status()).toBeLessThan(500);
  const options = await request.fetch("/contacts/", { method: "OPTIONS" });
  expect(options.status()).toBe(204);
  expect(options.headers()).toMatchObject({ allow: "POST, OPTIONS", "x-trace-id": expect.any(String) });
});
