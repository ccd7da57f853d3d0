import fc from "fast-check";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Actor } from "@/lib/accounts/permissions";
import {
  createIntegration as apiCreate,
  updateIntegration as apiUpdate,
} from "@/lib/management-api/private-integrations";
import { apiCreateSchema, apiUpdateSchema } from "@/lib/management-api/shape";
import { Refusal } from "@/lib/refusal";
import { signedInAs } from "@/lib/testing/actor";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { integrationPrincipal } from "@/lib/testing/integration-principal";
import { makeIntegration } from "@/lib/testing/integrations";
import { refusal } from "@/lib/testing/refusal";
import type { IntegrationOwner } from "./access";
import { createPrivateIntegration, updatePrivateIntegration } from "./lifecycle";
import type { PrivateIntegrationInput } from "./schemas";
import { verifyPrivateIntegrationToken } from "./verify";

/**
 * SPEC.md: forms report every invalid field at once, each beside its field. For any set of fields
 * made invalid (in any of the ways each can be), Create and Edit refuse naming exactly that set.
 */

// The server action runs outside Next.js here: the session and the cache are stand-ins.
const session = vi.hoisted(() => ({ actor: null as Actor | null }));
vi.mock("@/lib/auth/session", () => ({
  getActor: async () => session.actor,
  getSignedIn: async () => (session.actor ? signedInAs(session.actor) : null),
}));
vi.mock("next/cache", () => ({ revalidatePath: vi.fn() }));
const actions = await import("@/app/(admin)/_private-integrations/actions");

const now = new Date("2032-04-10T15:00:00.000Z");

let a: TestAgency;
let agency: IntegrationOwner;
beforeAll(async () => {
  a = await makeAgency({ locations: 2, privateIntegrationsLab: true });
  agency = { level: "agency", companyId: a.company.id };
});
beforeEach(() => {
  session.actor = null;
});

const valid: PrivateIntegrationInput = {
  name: "Nightly sync",
  description: "",
  scopes: ["locations.readonly"],
  expires: "2032-05-01",
  subAccounts: "all",
  allowedIpAddresses: "198.51.100.7\n203.0.113.0/24",
};

/** Each field the forms send, with the ways it can be invalid. */
const invalidWays = {
  name: [{ name: "" }, { name: "   " }, { name: "x".repeat(81) }, { name: undefined }],
  description: [{ description: "d".repeat(501) }],
  scopes: [{ scopes: [] }, { scopes: ["no.such.scope"] }, { scopes: ["contacts.write"] }, { scopes: undefined }],
  expires: [{ expires: "31/12/2032" }, { expires: "2032-02-30" }, { expires: "2032-04-09" }, { expires: "soon" }],
  subAccounts: [
    { subAccounts: "chosen", subAccountIds: [] },
    { subAccounts: "chosen", subAccountIds: ["not-a-sub-account"] },
  ],
  allowedIpAddresses: [{ allowedIpAddresses: "198.51.100.7\n300.1.1.1" }, { allowedIpAddresses: "not-an-address" }],
} satisfies Record<string, Partial<PrivateIntegrationInput>[]>;
type Field = keyof typeof invalidWays;
const fields = Object.keys(invalidWays) as Field[];

/** A set of fields and, for each, one way of making it invalid: the form input with all of them. */
const invalidInput = fc
  .subarray(fields)
  .chain((chosen) =>
    fc
      .tuple(...chosen.map((field) => fc.constantFrom(...invalidWays[field])))
      .map((ways) => ({ chosen, input: Object.assign({ ...valid }, ...ways) as PrivateIntegrationInput })),
  );

async function refusedFields(run: Promise<unknown>): Promise<string[] | "accepted"> {
  const outcome = await run.then(
    () => "accepted" as const,
    (error: unknown) => error,
  );
  if (outcome === "accepted") return outcome;
  expect(outcome).toBeInstanceOf(Refusal);
  const refused = outcome as Refusal;
  expect(refused.kind).toBe("invalid");
  const fieldErrors = refused.data.fieldErrors as Record<string, string>;
  // The refusal's own field and message are the first of them.
  expect(fieldErrors[refused.field!]).toBe(refused.message);
  return Object.keys(fieldErrors).sort();
}

const expectedFields = (chosen: Field[]) => (chosen.length ? [...chosen].sort() : "accepted");

describe("every invalid field at once", () => {
  it("Create names exactly the fields made invalid, whichever they are", async () => {
    await fc.assert(
      fc.asyncProperty(invalidInput, async ({ chosen, input }) => {
        expect(await refusedFields(createPrivateIntegration(a.owner, agency, input, now))).toEqual(
          expectedFields(chosen),
        );
      }),
      { numRuns: 80 },
    );
  });

  it("Edit names exactly the fields made invalid, and changes nothing then", async () => {
    const { integration, token } = await makeIntegration(a, { ...valid, now });
    await fc.assert(
      fc.asyncProperty(invalidInput, async ({ chosen, input }) => {
        const result = updatePrivateIntegration(a.owner, agency, integration.id, input, now);
        expect(await refusedFields(result)).toEqual(expectedFields(chosen));
      }),
      { numRuns: 60 },
    );
    expect((await verifyPrivateIntegrationToken(token, now, { clientAddress: "198.51.100.7" })).ok).toBe(true);
  });

  it("the create form's action puts each beside its field: empty Name, no scope, a bad Expires and IP line", async () => {
    session.actor = a.owner;
    const form = new FormData();
    for (const [k, v] of Object.entries({ name: "", expires: "31/12/2032", allowedIpAddresses: "10.0.0.1\nnope" })) {
      form.append(k, v);
    }
    const result = await actions.createIntegrationAction({}, form);
    expect(result.ok).toBeUndefined();
    expect(result.fieldErrors, JSON.stringify(result)).toEqual({
      name: "Enter a name.",
      scopes: "Choose at least one scope.",
      expires: expect.stringMatching(/YYYY-MM-DD/),
      allowedIpAddresses: expect.stringMatching(/nope/),
    });
    expect(result.values).toMatchObject({ expires: "31/12/2032", allowedIpAddresses: "10.0.0.1\nnope" });

    const { integration } = await makeIntegration(a, valid);
    const edit = new FormData();
    for (const [k, v] of Object.entries({ integrationId: integration.id, name: " ", expires: "soon" })) {
      edit.append(k, v);
    }
    edit.append("scopes[]", "no.such.scope");
    expect(Object.keys((await actions.updateIntegrationAction({}, edit)).fieldErrors ?? {}).sort()).toEqual([
      "expires",
      "name",
      "scopes",
    ]);
  });
});

describe("the management API's 400", () => {
  const caller = () =>
    integrationPrincipal(a, ["private-integrations.write", "locations.readonly"], { name: "Automation" });

  it("names every invalid field at once, under the API's names", async () => {
    const principal = await caller();
    // The body passes the API's shapes: the rules (the date's form too) are the lifecycle's.
    const body = apiCreateSchema.parse({ name: "", scopes: [], expiresAt: "31/12/2032", allowedIps: ["300.1.1.1"] });
    const error = await refusal(apiCreate(principal, body));
    expect(Object.keys(error.data.fieldErrors as object).sort()).toEqual(["allowedIps", "expiresAt", "name", "scopes"]);

    const { privateIntegration } = await apiCreate(principal, { name: "Patch me", scopes: ["locations.readonly"] });
    const patch = apiUpdateSchema.parse({ name: " ", expiresAt: "2032-13-01", subAccounts: ["nope"] });
    const patched = await refusal(apiUpdate(principal, privateIntegration.id, patch));
    expect(Object.keys(patched.data.fieldErrors as object).sort()).toEqual(["expiresAt", "name", "subAccounts"]);
  });
});
