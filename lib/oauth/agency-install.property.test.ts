import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { createLocation } from "@/lib/provisioning/create-location";
import { apiClient } from "@/lib/testing/api-client";
import { makeAgency, type TestAgency, uniqueSuffix } from "@/lib/testing/fixtures";
import { install, makeApp, postCodeGrant } from "@/lib/testing/oauth";
import { verifyAccessToken } from "@/lib/tokens/access-token";
import { uninstallApp } from "./uninstall";

/**
 * SPEC.md › POST /oauth/locationToken and Install to future sub-accounts, as a model: an agency
 * install of one app, under any sequence of re-installs (chosen sub-accounts, or all, with or
 * without those created later), sub-accounts created meanwhile, uninstalls, and exchanges of any
 * of its Company tokens for a Location token of any sub-account (its own agency's or another's).
 * Each exchange answers what the model says (200, 401 for a Company token that no longer works,
 * 403 for a sub-account of another agency or one the app is not installed on); after every step
 * each token ever issued works exactly while the model says, a re-install that drops a sub-account
 * takes its Location tokens down and nothing else, and /oauth/installedLocations lists the chosen.
 */

const api = apiClient(apiRoutes);
let otherAgency: TestAgency;
beforeAll(async () => {
  otherAgency = await makeAgency({ locations: 1 });
});

type Step =
  /** An agency install: all sub-accounts, or those `pick` chooses among the agency's now (at least one). */
  | { act: "install"; all: boolean; future: boolean; pick: boolean[] }
  | { act: "createSubAccount" }
  /** The Company token `company` (of the installs so far) for sub-account `location`, or another agency's. */
  | { act: "exchange"; company: number; location: number | "another agency's" }
  | { act: "uninstall" };

interface IssuedToken {
  token: string;
  alive: boolean;
  locationId?: string;
}
interface Model {
  installationId: string | undefined;
  installed: boolean;
  chosen: Set<string>;
  future: boolean;
  locations: string[];
  companyTokens: IssuedToken[];
  locationTokens: IssuedToken[];
}

const aStep: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      act: fc.constant("install" as const),
      all: fc.boolean(),
      future: fc.boolean(),
      pick: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant<Step>({ act: "createSubAccount" }) },
  {
    weight: 4,
    arbitrary: fc.record({
      act: fc.constant("exchange" as const),
      company: fc.nat(3),
      location: fc.oneof({ weight: 6, arbitrary: fc.nat(5) }, fc.constant("another agency's" as const)),
    }),
  },
  { weight: 1, arbitrary: fc.constant<Step>({ act: "uninstall" }) },
);

/** What an exchange answers, in the endpoint's order of checks. */
function expectedExchange(m: Model, company: IssuedToken, locationId: string | undefined): string {
  if (!company.alive) return "401 invalid_token";
  if (locationId === undefined) return "403 forbidden: not a sub-account of this agency";
  if (!m.chosen.has(locationId)) return "403 forbidden: not installed";
  return "200";
}

async function runInstalls(steps: Step[]): Promise<void> {
  const agency = await makeAgency({ locations: 2 });
  const app: CreatedApp = await makeApp(agency.company.id);
  const m: Model = {
    installationId: undefined,
    installed: false,
    chosen: new Set(),
    future: false,
    locations: agency.locations.map((l) => l.id),
    companyTokens: [],
    locationTokens: [],
  };
  const log: string[] = [];
  for (const step of steps) {
    let expected = "done";
    let actual = "done";
    switch (step.act) {
      case "install": {
        let chosen = m.locations.filter((_, i) => step.pick[i % step.pick.length]);
        if (chosen.length === 0) chosen = [m.locations[0]!];
        const everyOne = step.all || m.locations.every((id) => chosen.includes(id));
        const target = step.all
          ? { level: "agency" as const, locationIds: [], allLocations: true, installToFutureLocations: step.future }
          : { level: "agency" as const, locationIds: chosen, installToFutureLocations: step.future };
        const { code, installationId } = await install(agency.owner, app.app.clientId, target);
        const answer = await postCodeGrant(api, app, code);
        expect(answer.status, log.join("\n")).toBe(200);
        const now = new Set(step.all ? m.locations : chosen);
        // Dropping a sub-account takes its Location tokens down; the ones kept keep theirs.
        for (const t of m.locationTokens) if (!now.has(t.locationId!)) t.alive = false;
        Object.assign(m, { installationId, installed: true, chosen: now, future: everyOne && step.future });
        m.companyTokens.push({ token: (answer.body as { access_token: string }).access_token, alive: true });
        break;
      }
      case "createSubAccount": {
        const location = await createLocation({ companyId: agency.company.id, name: `Later ${uniqueSuffix()}` });
        m.locations.push(location.id);
        // An install that chose every sub-account and those created later gets it at once.
        if (m.installed && m.future) m.chosen.add(location.id);
        break;
      }
      case "exchange": {
        const company = m.companyTokens[step.company % Math.max(1, m.companyTokens.length)];
        if (!company) continue;
        const locationId =
          step.location === "another agency's"
            ? otherAgency.locations[0]!.id
            : m.locations[step.location % m.locations.length]!;
        const ours = step.location === "another agency's" ? undefined : locationId;
        expected = expectedExchange(m, company, ours);
        const answer = await api.post("/oauth/locationToken", {
          form: { companyId: agency.company.id, locationId },
          token: company.token,
        });
        const body = answer.body as { error?: string; error_description?: string; access_token?: string };
        actual =
          answer.status === 200
            ? "200"
            : answer.status === 403 && body.error === "forbidden"
              ? /not a sub-account/.test(body.error_description ?? "")
                ? "403 forbidden: not a sub-account of this agency"
                : /not installed/.test(body.error_description ?? "")
                  ? "403 forbidden: not installed"
                  : `403 forbidden: ${body.error_description}`
              : `${answer.status} ${body.error}`;
        if (actual === "200") m.locationTokens.push({ token: body.access_token!, alive: true, locationId });
        break;
      }
      case "uninstall": {
        expected = m.installed ? "done" : "nothing installed";
        if (m.installationId && m.installed) {
          await uninstallApp({ installationId: m.installationId });
          for (const t of [...m.companyTokens, ...m.locationTokens]) t.alive = false;
          Object.assign(m, { installed: false, chosen: new Set(), future: false });
        } else actual = "nothing installed";
        break;
      }
    }
    log.push(`${JSON.stringify(step)}: expected ${expected}`);
    const seen = `${log.join("\n")}\n→ ${actual}`;
    expect(actual, seen).toBe(expected);
    await expectTokens(m, agency, seen);
  }
}

/** Every token against the model, and the installed sub-accounts as the app reads them. */
async function expectTokens(m: Model, agency: TestAgency, seen: string): Promise<void> {
  const tokens = [...m.companyTokens.map((t) => ({ ...t, kind: "Company" })), ...m.locationTokens];
  for (const [index, t] of tokens.entries()) {
    const works = (await verifyAccessToken(t.token, new Date())).ok;
    expect(works, `${seen}\ntoken ${index} (${t.locationId ?? "Company"})`).toBe(t.alive);
  }
  const live = m.companyTokens.find((t) => t.alive);
  if (!live) return;
  const listed = await api.get("/oauth/installedLocations", {
    query: { companyId: agency.company.id },
    token: live.token,
  });
  const ids = (listed.body as { locations: { _id?: string; id?: string }[] }).locations.map((l) => l._id ?? l.id);
  expect(ids.sort(), `${seen}\ninstalledLocations`).toEqual([...m.chosen].sort());
}

/**
 * Every sub-account chosen one by one with those created later, a Location token of each; a
 * re-install that drops some; all with later ones; an uninstall; an install again.
 */
const everyRule: Step[] = [
  { act: "install", all: false, future: true, pick: [true, true, false, false, false, false] },
  { act: "exchange", company: 0, location: 0 },
  { act: "exchange", company: 0, location: 1 },
  { act: "exchange", company: 0, location: "another agency's" },
  { act: "createSubAccount" },
  { act: "exchange", company: 0, location: 2 },
  { act: "install", all: false, future: false, pick: [true, false, false, false, false, false] },
  { act: "exchange", company: 0, location: 1 },
  { act: "createSubAccount" },
  { act: "exchange", company: 1, location: 3 },
  { act: "install", all: true, future: true, pick: [false, false, false, false, false, false] },
  { act: "createSubAccount" },
  { act: "exchange", company: 2, location: 4 },
  { act: "uninstall" },
  { act: "exchange", company: 2, location: 0 },
  { act: "install", all: false, future: false, pick: [false, false, false, true, false, false] },
  { act: "exchange", company: 3, location: 3 },
];

describe("an agency install's Location tokens under any sequence of installs (model-based property)", () => {
  it("exchange, survive and fall exactly as SPEC.md says", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(aStep, { minLength: 1, maxLength: 10 }), (steps) => runInstalls(steps)),
      { numRuns: Number(process.env.RUNS ?? 25), examples: [[everyRule]] },
    );
  });
});
