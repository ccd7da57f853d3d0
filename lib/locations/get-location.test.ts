import { describe, expect, it } from "vitest";
import { readCacheStats } from "@/lib/db/read-cache";
import { Refusal } from "@/lib/refusal";
import { waitFor, writerElsewhere } from "@/lib/testing/elsewhere";
import { makeAgency } from "@/lib/testing/fixtures";
import type { Principal } from "@/lib/tokens/principal";
import { getLocationForPrincipal } from "./get-location";

/**
 * GET /locations/{id} answers from the read cache; these prove the cache never changes who may
 * read a sub-account, and that a sub-account changed or removed elsewhere (another instance, psql)
 * is answered as it now is within a second.
 */

function agencyToken(companyId: string): Principal {
  return {
    kind: "private_integration",
    authClass: "Company",
    companyId,
    scopes: ["locations.readonly"],
    integrationId: "pi",
    tokenId: "t",
  };
}

/** SPEC.md's second, with room: a read that has not changed by then fails the test. */
/** How long a test waits for the cache, which hears of a change by the listener's NOTIFY. */
const NOTICED_WITHIN_MS = 2_000;

/** Reads until the row is cached (the listener is up and the entry stored). */
async function cached(principal: Principal, locationId: string): Promise<void> {
  await waitFor(async () => {
    await getLocationForPrincipal(principal, locationId);
    return readCacheStats().listening;
  }, NOTICED_WITHIN_MS);
  await getLocationForPrincipal(principal, locationId);
}

/** The kind of Refusal `read` ends in, or undefined when it answers. */
async function refusalKind(read: Promise<unknown>): Promise<string | undefined> {
  try {
    await read;
    return undefined;
  } catch (error) {
    if (error instanceof Refusal) return error.kind;
    throw error;
  }
}

describe("the cached sub-account", () => {
  it("still refuses another agency's token, and a sub-account token of another sub-account", async () => {
    const mine = await makeAgency({ locations: 2 });
    const theirs = await makeAgency({ locations: 1 });
    const first = mine.locations[0]!;
    const second = mine.locations[1]!;
    await cached(agencyToken(mine.company.id), first.id);
    expect(await refusalKind(getLocationForPrincipal(agencyToken(theirs.company.id), first.id))).toBe("forbidden");
    const otherSubAccount: Principal = {
      ...agencyToken(mine.company.id),
      authClass: "Location",
      locationId: second.id,
    };
    expect(await refusalKind(getLocationForPrincipal(otherSubAccount, first.id))).toBe("forbidden");
    const own: Principal = { ...otherSubAccount, locationId: first.id };
    expect((await getLocationForPrincipal(own, first.id)).id).toBe(first.id);
  });
});

describe("a sub-account changed elsewhere is answered as it now is within a second", () => {
  const elsewhere = writerElsewhere();

  /** A cached sub-account changed by `sql` elsewhere: the read answers `changed` within a second. */
  async function changedElsewhere(sql: string, changed: (principal: Principal, id: string) => Promise<boolean>) {
    const agency = await makeAgency({ locations: 1 });
    const { id } = agency.locations[0]!;
    const principal = agencyToken(agency.company.id);
    await cached(principal, id);
    const notified = readCacheStats().notifications;
    await elsewhere(sql, [id]);
    const ms = await waitFor(() => changed(principal, id), NOTICED_WITHIN_MS);
    expect(ms).toBeLessThan(1_000);
    // Through the trigger's NOTIFY, not only the entry's sub-second lifetime.
    expect(readCacheStats().notifications).toBeGreaterThan(notified);
  }

  it("renamed", async () => {
    await changedElsewhere(
      `UPDATE "Location" SET name = 'Renamed elsewhere' WHERE id = $1`,
      async (principal, id) => (await getLocationForPrincipal(principal, id)).name === "Renamed elsewhere",
    );
  });

  it("removed", async () => {
    await changedElsewhere(
      `DELETE FROM "Location" WHERE id = $1`,
      async (principal, id) => (await refusalKind(getLocationForPrincipal(principal, id))) === "forbidden",
    );
  });
});
