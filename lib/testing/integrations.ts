import { beforeAll } from "vitest";
import type { Actor } from "@/lib/accounts/permissions";
import type { IntegrationOwner, LifecycleActor } from "@/lib/integrations/access";
import { utcDate } from "@/lib/integrations/expiry";
import { createPrivateIntegration, type IssuedToken, type IssueOptions } from "@/lib/integrations/lifecycle";
import type { PrivateIntegrationInput } from "@/lib/integrations/schemas";
import { makeAgency, type TestAgency, uniqueSuffix } from "./fixtures";

/** What a test says of the integration it needs: the rest is a valid default. */
export interface IntegrationSpec extends Omit<PrivateIntegrationInput, "expires"> {
  /** A sub-account's integration; the agency's own without (or `owner`). */
  locationId?: string;
  /** Whose integration, when the test holds it already (`agencyOwner`, `subAccountOwner`). */
  owner?: IntegrationOwner;
  /** Its `Expires` date: YYYY-MM-DD as the form sends it, or the UTC day a moment falls on. */
  expires?: string | Date;
  /** Who creates it, a person or an integration through the management API: the agency's owner by default. */
  creator?: LifecycleActor;
  /** The create rule's clock. */
  now?: Date;
  /** As the screens and the management API create: an idempotency key, a token shown later. */
  issue?: IssueOptions;
}

/**
 * A private integration of `agency`, made through the lifecycle's own create rule (access, scopes
 * at its level, guard rails, audit), with `locations.readonly` and a fresh name unless the test
 * says otherwise. Answers the integration as the screens read it, its id, and its token, shown once.
 */
export async function makeIntegration(
  agency: { owner: Actor },
  spec: IntegrationSpec = {},
): Promise<IssuedToken & { id: string }> {
  const { locationId, owner, expires, creator, now, issue, ...input } = spec;
  const whose: IntegrationOwner =
    owner ?? (locationId ? { level: "location", locationId } : { level: "agency", companyId: agency.owner.companyId });
  const issued = await createPrivateIntegration(
    creator ?? agency.owner,
    whose,
    {
      ...input,
      name: input.name ?? `Integration ${uniqueSuffix()}`,
      scopes: input.scopes ?? ["locations.readonly"],
      ...(expires === undefined ? {} : { expires: typeof expires === "string" ? expires : utcDate(expires) }),
    },
    now,
    issue,
  );
  return { ...issued, id: issued.integration.id };
}

/** An agency's integrations as API callers: a token of its first sub-account's, its second's, and its own. */
export interface IntegrationCallers {
  agency: TestAgency;
  first: string;
  second: string;
  agencyWide: string;
}

/**
 * IntegrationCallers made before the tests of the file (or describe block) that calls this: read
 * them in tests. The sub-accounts' integrations hold `scopes`, the agency's the default.
 */
export function withIntegrationCallers(scopes: string[]): IntegrationCallers {
  const made = {} as IntegrationCallers;
  beforeAll(async () => {
    const agency = await makeAgency({ locations: 2, privateIntegrationsLab: true });
    const [first, second] = agency.locations.map((location) => location.id);
    made.agency = agency;
    made.first = (await makeIntegration(agency, { locationId: first, scopes })).token;
    made.second = (await makeIntegration(agency, { locationId: second, scopes })).token;
    made.agencyWide = (await makeIntegration(agency)).token;
  });
  return made;
}
