import { z } from "zod";
import { cachedLocation, findLocation, type LocationRow } from "@/lib/accounts/locations";
import { subAccountNotChosenDescription } from "@/lib/integrations/guard-rails";
import { forbidden, type Refusal } from "@/lib/refusal";
import type { Principal } from "@/lib/tokens/principal";

export const locationSchema = z
  .object({
    id: z.string().meta({ examples: ["cm3x5loc0000001"] }),
    companyId: z
      .string()
      .meta({ description: "The agency the sub-account belongs to.", examples: ["cm3x5cmp0000001"] }),
    name: z.string().meta({ examples: ["Downtown Dental"] }),
    createdAt: z.iso.datetime().meta({ examples: ["2026-01-15T09:30:00.000Z"] }),
  })
  .meta({ description: "A sub-account." });
export type LocationView = z.infer<typeof locationSchema>;

/**
 * The same refusal whether the sub-account is someone else's or does not exist, so an id reveals
 * nothing (SPEC.md: "Anything else: 403 forbidden, whether or not the location exists").
 */
function notYours(principal: Principal): Refusal {
  const whose =
    principal.authClass === "Location"
      ? "A sub-account token can read only its own sub-account"
      : "An agency token can read only its agency's sub-accounts";
  return forbidden(`${whose}; this token cannot read this one.`);
}

/**
 * GET /locations/{locationId}: a Location token (access or private integration) of that
 * sub-account, or a Company token (access or private integration) of its agency. The row comes
 * from the read cache (lib/db/read-cache.ts) or one indexed read; access is decided on every
 * request. Every committed change of a sub-account empties every instance's cache through NOTIFY
 * (migration `location_state_notify`); code that changes one should run the change through
 * `changeCachedState`, so its own instance never answers from the old row.
 */
export async function getLocationForPrincipal(principal: Principal, locationId: string): Promise<LocationView> {
  return locationForPrincipal(principal, locationId);
}

/** getLocationForPrincipal, answering at once (or throwing) when the row is in the read cache. */
export function locationForPrincipal(principal: Principal, locationId: string): LocationView | Promise<LocationView> {
  if (principal.authClass === "Location" && principal.locationId !== locationId) throw notYours(principal);
  const cached = cachedLocation(locationId);
  if (cached) return viewFor(principal, cached);
  return findLocation(locationId).then((row) => viewFor(principal, row));
}

function viewFor(principal: Principal, row: LocationRow | undefined): LocationView {
  if (!row || row.companyId !== principal.companyId) throw notYours(principal);
  // An agency private integration with chosen Sub-accounts: others of its agency (also ones created later) are refused.
  if (principal.allowedLocationIds && !principal.allowedLocationIds.includes(row.id)) {
    throw forbidden(subAccountNotChosenDescription);
  }
  return { id: row.id, companyId: row.companyId, name: row.name, createdAt: isoTime(row.createdAt) };
}

/** A cached row's time as text, written once per row (the cache hands out the row's own Date, never changed). */
const isoTimes = new WeakMap<Date, string>();

/** `new Date(value).toISOString()`, without copying a Date or writing a cached row's twice. */
function isoTime(value: Date | string): string {
  if (!(value instanceof Date)) return new Date(value).toISOString();
  let iso = isoTimes.get(value);
  if (iso === undefined) {
    iso = value.toISOString();
    isoTimes.set(value, iso);
  }
  return iso;
}
