// Over 250 lines on purpose: one seeded pair of agencies, probed through the screens and every API
// route, then checked unchanged; the check needs all probes first.
import type { APIRequestContext, APIResponse } from "@playwright/test";
import { appFilesNamed } from "@/lib/testing/source-tree";
import { leftToNext } from "../scripts/route-table";
import { rowsOnServerDatabase } from "./support/database";
import { answerCallback, createApp, installApp } from "./support/install";
import { createOnScreen } from "./support/private-integrations";
import { rememberSecret } from "./support/secrets";
import { expect as baseExpect, test } from "./support/test";
import { createAgency, createUser, type E2eAgency, signIn } from "./support/world";

/**
 * One tenant cannot reach another's data, through the running server: signed in as agency B (and as a sub-account user
 * of A without the permission), A's screens are refused; with B's tokens, A's ids are refused by
 * every API route; afterwards A's tokens, code-issued grants and data are as they were. Every
 * server action is called with the wrong actor in app/cross-tenant.test.ts (Next.js calls them
 * by an opaque action id, so the lib-level call is the precise proof there).
 */

test.describe.configure({ timeout: 300_000 });
const expect = baseExpect.configure({ timeout: 30_000 });

const VERSION = "2021-07-28";
const scopes = "oauth.readonly oauth.write locations.readonly contacts.write contacts.readonly";

/** A's and B's apps: every scope the API routes below need, and a webhook URL nobody answers. */
function createAppOf(companyId: string) {
  return createApp(companyId, { scopes, webhookUrl: "https://hooks.example.test/receive" });
}

async function locationToken(request: APIRequestContext, companyToken: string, companyId: string, locationId: string) {
  const res = await request.post("/oauth/locationToken", {
    headers: { Authorization: `Bearer ${companyToken}`, Version: VERSION },
    form: { companyId, locationId },
  });
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

const bearerHeaders = (token: string) => ({ Authorization: `Bearer ${token}`, Version: VERSION });

/** A refusal in SPEC.md's body, with one of the expected statuses and nothing of A in it. */
async function expectApiRefused(res: APIResponse, statuses: number[], label: string, secrets: string[] = []) {
  const text = await res.text();
  expect(statuses, `${label}: ${res.status()} ${text}`).toContain(res.status());
  expect(JSON.parse(text), label).toMatchObject({ error: expect.any(String), statusCode: res.status() });
  for (const s of secrets) expect(text, label).not.toContain(s);
}

test("screens: agency B and A's sub-account user without the permission open A's URLs and are refused", async ({
  page,
  request,
}) => {
  const A = await createAgency({ locations: 2, labs: true });
  const appA = await createAppOf(A.companyId);
  const B = await createAgency({ locations: 1, labs: true });
  const sub = await createUser(A.companyId, "account_user", {
    locations: [A.locationIds[0]!],
    agencyPi: "off",
    locationPi: "off",
  });
  // An installation of A's, for the screens that name one (Review update); its id is read from
  // the database where the test can (PostgreSQL), else a made-up id proves "not found" only.
  await signIn(page, A.owner.email);
  await answerCallback(page);
  await installApp(page, request, appA, "Company");
  const installations = await rowsOnServerDatabase<{ id: string }>('SELECT id FROM "Installation" WHERE "appId" = $1', [
    appA.appId,
  ]);
  const installationId = installations?.[0]?.id;
  await page.context().clearCookies();

  // Every screen whose URL carries an id: what B and A's sub-account user see there.
  const screens: Record<string, { path: string; asB: RegExp; asSub: RegExp }> = {
    "(admin)/developer/apps/[appId]/page.tsx": {
      path: `/developer/apps/${appA.appId}`,
      asB: /^App not found$/,
      asSub: /^You don't have permission to manage apps$/,
    },
    "(admin)/developer/apps/[appId]/webhooks/page.tsx": {
      path: `/developer/apps/${appA.appId}/webhooks`,
      asB: /^App not found$/,
      asSub: /^You don't have permission to manage apps$/,
    },
    "(admin)/marketplace/updates/[installationId]/page.tsx": {
      path: `/marketplace/updates/${installationId ?? "no-such-installation"}`,
      // Another agency's installation is "not found"; A's own, to someone who may not approve, says why.
      asB: /^App not found$/,
      asSub: installationId ? /^You can't review this update$/ : /^App not found$/,
    },
    "(admin)/location/[locationId]/settings/page.tsx": {
      path: `/location/${A.locationIds[0]}/settings`,
      asB: /^Sub-account not found$/,
      // Their own sub-account opens; the other one does not (checked below).
      asSub: /^Sub-account 1$/,
    },
    "(admin)/location/[locationId]/settings/private-integrations/page.tsx": {
      path: `/location/${A.locationIds[0]}/settings/private-integrations`,
      asB: /^Sub-account not found$/,
      asSub: /^You don't have permission to manage private integrations$/,
    },
  };
  const withIds = appFilesNamed("page.tsx").filter((f) => f.includes("["));
  expect(
    withIds.filter((f) => !screens[f]),
    "screens with ids in the URL and no cross-tenant case",
  ).toEqual([]);

  async function expectScreen(path: string, title: RegExp) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBeLessThan(500);
    await expect(page.getByRole("main").getByRole("heading", { name: title }).first(), path).toBeVisible();
    const html = await page.content();
    for (const secret of [appA.name, appA.clientId]) expect(html, path).not.toContain(secret);
    await expect(page.getByRole("button", { name: /Create new integration|Regenerate|Redeliver|Save/ })).toHaveCount(0);
  }

  await signIn(page, B.owner.email);
  for (const { path, asB } of Object.values(screens)) await expectScreen(path, asB);
  // B's own screens list nothing of A's (the marketplace lists A's app: apps are public there).
  for (const path of ["/developer/apps", "/settings/team", "/settings/private-integrations"]) {
    await page.goto(path);
    expect(await page.content(), path).not.toContain(A.owner.email);
    expect(await page.content(), path).not.toContain(appA.clientId);
  }

  await page.context().clearCookies();
  await signIn(page, sub.email);
  for (const { path, asSub } of Object.values(screens)) await expectScreen(path, asSub);
  await expectScreen(`/location/${A.locationIds[1]}/settings`, /^Sub-account not found$/);
  // Of their own agency, so it says why rather than "not found".
  await expectScreen(
    `/location/${A.locationIds[1]}/settings/private-integrations`,
    /^You don't have permission to manage private integrations$/,
  );
  await expectScreen("/settings/private-integrations", /^You don't have permission to manage private integrations$/);
  await expectScreen("/settings/team", /^You don't have permission to manage the team$/);
  await expectScreen("/settings/labs", /^You don't have permission to change Labs$/);
  await expectScreen("/developer/apps", /^You don't have permission to manage apps$/);
});

test("API: B's tokens with A's ids are refused by every route, and A's tokens and data are unchanged", async ({
  page,
  request,
}) => {
  const A: E2eAgency = await createAgency({ locations: 2, labs: true });
  const B: E2eAgency = await createAgency({ locations: 1, labs: true });
  const [appA, appB] = [await createAppOf(A.companyId), await createAppOf(B.companyId)];
  const [a0, a1] = A.locationIds as [string, string];

  await signIn(page, A.owner.email);
  await answerCallback(page);
  const aCompany = await installApp(page, request, appA, "Company");
  const aLocation = await locationToken(request, aCompany.access_token, A.companyId, a0);
  const created = await request.post("/contacts/", {
    headers: bearerHeaders(aLocation),
    data: { firstName: "Ada", lastName: "Lovelace", email: "ada@a.example", phone: "+14155550123", locationId: a0 },
  });
  expect(created.status()).toBe(201);
  const contactId = ((await created.json()) as { contact: { id: string } }).contact.id;
  // A's agency private integration: the management API's {id}, read through that API.
  const aPit = await createOnScreen(page, "A's integration", ["private-integrations.readonly", "locations.readonly"]);
  const listedForA = await request.get("/private-integrations", { headers: bearerHeaders(aPit) });
  expect(listedForA.status(), await listedForA.text()).toBe(200);
  const aIntegrationId = ((await listedForA.json()) as { privateIntegrations: { id: string }[] })
    .privateIntegrations[0]!.id;

  await page.context().clearCookies();
  await signIn(page, B.owner.email);
  const bCompany = await installApp(page, request, appB, "Company");
  const bLocation = await locationToken(request, bCompany.access_token, B.companyId, B.locationIds[0]!);
  const bPit = await createOnScreen(
    page,
    "B's reader",
    ["locations.readonly", "contacts.readonly", "contacts.write"],
    `/location/${B.locationIds[0]}/settings/private-integrations`,
  );
  rememberSecret(bPit, "B's private integration");
  // B's agency integration that may manage private integrations (the management API).
  // With no expiry, as API-made integrations have: only the tenancy refuses it.
  const bManager = await createOnScreen(
    page,
    "B's manager",
    ["private-integrations.write", "locations.readonly"],
    undefined,
    { noExpiration: true },
  );

  const bTokens = {
    "B's Company token": bCompany.access_token,
    "B's Location token": bLocation,
    "B's private integration": bPit,
  };
  const covered = new Set<string>();
  const basicB = `Basic ${Buffer.from(`${appB.clientId}:${appB.clientSecret}`).toString("base64")}`;

  for (const [label, token] of Object.entries(bTokens)) {
    await expectApiRefused(await request.get(`/locations/${a0}`, { headers: bearerHeaders(token) }), [403, 404], label);
    await expectApiRefused(
      await request.get(`/contacts/${contactId}`, { headers: bearerHeaders(token) }),
      [403, 404],
      label,
      ["ada@a.example"],
    );
    const eve = { firstName: "Eve", lastName: "X", email: `eve-${label.length}@b.example`, phone: "+14155550123" };
    await expectApiRefused(
      await request.post("/contacts/", { headers: bearerHeaders(token), data: { ...eve, locationId: a0 } }),
      [403, 404],
      label,
    );
    await expectApiRefused(
      await request.get(`/oauth/installedLocations?companyId=${A.companyId}`, { headers: bearerHeaders(token) }),
      [401, 403],
      label,
    );
    await expectApiRefused(
      await request.post("/oauth/locationToken", {
        headers: bearerHeaders(token),
        form: { companyId: A.companyId, locationId: a0 },
      }),
      [403],
      label,
    );
    await expectApiRefused(
      await request.post("/api/operator", {
        headers: { Authorization: `Bearer ${token}` },
        data: {
          command: "labs:set",
          flags: { company: A.companyId, feature: "private-integrations", enabled: "false" },
        },
      }),
      // 401 for a key that is not the operator's; 403 where remote calls are closed altogether.
      [401, 403],
      label,
    );
  }
  // The management API: B's manager finds none of A's integrations or sub-accounts; B's other tokens may not call it.
  for (const [label, token, statuses] of [
    ["B's manager", bManager, [404]],
    ...Object.entries(bTokens).map(([label, token]) => [label, token, [403]] as const),
  ] as const) {
    const pi = `/private-integrations/${aIntegrationId}`;
    await expectApiRefused(
      await request.get(`/private-integrations?locationId=${a0}`, { headers: bearerHeaders(token) }),
      [...statuses],
      label,
    );
    await expectApiRefused(
      await request.post("/private-integrations", {
        headers: bearerHeaders(token),
        data: { name: "Planted", scopes: ["locations.readonly"], locationId: a0 },
      }),
      [...statuses],
      label,
    );
    await expectApiRefused(
      await request.patch(pi, { headers: bearerHeaders(token), data: { name: "Taken" } }),
      [...statuses],
      label,
    );
    await expectApiRefused(
      await request.post(`${pi}/rotate`, { headers: bearerHeaders(token), data: { mode: "now" } }),
      [...statuses],
      label,
    );
    for (const action of ["expire-now", "cancel-rotation"])
      await expectApiRefused(
        await request.post(`${pi}/${action}`, { headers: bearerHeaders(token) }),
        [...statuses],
        label,
      );
    await expectApiRefused(await request.get(`${pi}/usage`, { headers: bearerHeaders(token) }), [...statuses], label);
    await expectApiRefused(await request.delete(pi, { headers: bearerHeaders(token) }), [...statuses], label);
  }
  for (const route of [
    "private-integrations",
    "private-integrations/[id]",
    "private-integrations/[id]/rotate",
    "private-integrations/[id]/expire-now",
    "private-integrations/[id]/cancel-rotation",
    "private-integrations/[id]/usage",
  ])
    covered.add(route);
  for (const route of [
    "locations/[locationId]",
    "contacts/[contactId]",
    "contacts",
    "oauth/installedLocations",
    "oauth/locationToken",
    "api/operator",
  ])
    covered.add(route);

  // B's own company with A's sub-account.
  await expectApiRefused(
    await request.post("/oauth/locationToken", {
      headers: bearerHeaders(bCompany.access_token),
      form: { companyId: B.companyId, locationId: a0 },
    }),
    [403],
    "B's company, A's sub-account",
  );
  // A's sub-account token (a sub-account user's reach): not A's other sub-account, not the agency.
  await expectApiRefused(
    await request.get(`/locations/${a1}`, { headers: bearerHeaders(aLocation) }),
    [403, 404],
    "A's other sub-account",
  );
  await expectApiRefused(
    await request.get(`/oauth/installedLocations?companyId=${A.companyId}`, { headers: bearerHeaders(aLocation) }),
    [403],
    "A's Location token at agency level",
  );

  // B's client with A's tokens: refresh refused, revoke leaves them working, introspect says inactive.
  await expectApiRefused(
    await request.post("/oauth/token", {
      headers: { Authorization: basicB },
      form: { grant_type: "refresh_token", refresh_token: aCompany.refresh_token },
    }),
    [400, 401],
    "B's client refreshing A's token",
  );
  for (const token of [aCompany.access_token, aCompany.refresh_token, aLocation]) {
    const revoked = await request.post("/oauth/revoke", { headers: { Authorization: basicB }, form: { token } });
    expect(revoked.status()).toBeLessThan(500);
    const introspected = await request.post("/oauth/introspect", {
      headers: { Authorization: basicB },
      form: { token },
    });
    expect(await introspected.json()).toEqual({ active: false });
  }
  // B's app lists its own missed events, never A's (where GET /webhooks/events is served).
  const events = await request.get("/webhooks/events", { headers: { Authorization: basicB } });
  expect(events.status()).toBeLessThan(500);
  for (const id of [A.companyId, a0, a1]) expect(await events.text()).not.toContain(id);
  for (const route of ["oauth/token", "oauth/revoke", "oauth/introspect", "webhooks/events"]) covered.add(route);

  // Routes that hold no tenant's data: those left to Next.js (scripts/route-table.ts says why) and
  // those whose every operation in /openapi.json needs no authentication (no caller, so no tenant;
  // the leaked-token routes revoke what the caller holds: app/cross-tenant.test.ts proves another
  // tenant's ids get them nothing).
  for (const route of Object.keys(leftToNext)) covered.add(route.slice(1));
  const documented = (await (await request.get("/openapi.json")).json()) as {
    paths: Record<string, Record<string, { security: unknown[] }>>;
  };
  for (const [path, operations] of Object.entries(documented.paths)) {
    if (Object.values(operations).every((op) => op.security.length === 0))
      covered.add(path.replace(/\{(\w+)\}/g, "[$1]").replace(/^\/|\/$/g, ""));
  }
  const routes = appFilesNamed("route.ts").map((f) => f.replace(/\/route\.ts$/, ""));
  expect(
    routes.filter((r) => !covered.has(r)),
    "routes without a cross-tenant case",
  ).toEqual([]);

  // Nothing of A changed: its tokens work, its contact is there, its refresh token still rotates.
  expect((await request.get(`/locations/${a0}`, { headers: bearerHeaders(aLocation) })).status()).toBe(200);
  expect((await request.get(`/locations/${a0}`, { headers: bearerHeaders(aPit) })).status()).toBe(200);
  const contact = await request.get(`/contacts/${contactId}`, { headers: bearerHeaders(aLocation) });
  expect(contact.status()).toBe(200);
  expect(((await contact.json()) as { contact: { firstName: string } }).contact.firstName).toBe("Ada");
  const installed = await request.get(`/oauth/installedLocations?companyId=${A.companyId}`, {
    headers: bearerHeaders(aCompany.access_token),
  });
  expect(installed.status()).toBe(200);
  const refreshed = await request.post("/oauth/token", {
    form: {
      grant_type: "refresh_token",
      client_id: appA.clientId,
      client_secret: appA.clientSecret,
      refresh_token: aCompany.refresh_token,
    },
  });
  expect(refreshed.status(), await refreshed.text()).toBe(200);
});
