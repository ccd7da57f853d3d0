import { db } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { notFound } from "@/lib/errors";
import { installAppsOnNewSubAccount } from "@/lib/oauth/future-installs";
import { recordAudit } from "./audit";
import { type Actor, canAccessLocation } from "./permissions";

const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 20_000 } as const;

export interface CreateCompanyOptions {
  name: string;
  whitelabelDomain?: string | null;
  whitelabelLogoUrl?: string | null;
}

export async function createCompany(options: CreateCompanyOptions) {
  return db().$transaction(async (tx) => {
    const company = await tx.company.create({
      data: {
        name: options.name,
        whitelabelDomain: options.whitelabelDomain ?? null,
        whitelabelLogoUrl: options.whitelabelLogoUrl ?? null,
      },
    });
    await recordAudit(tx, {
      companyId: company.id,
      action: "company_created",
      targetId: company.id,
      details: { name: company.name },
    });
    return company;
  });
}

/** A company with a white-label domain is a white-label company. */
export function isWhitelabelCompany(company: { whitelabelDomain: string | null }): boolean {
  return Boolean(company.whitelabelDomain);
}

/**
 * Creates a sub-account: the one way every path (CLI, seed, tests, screens) makes one, because the
 * apps installed on "all sub-accounts, also those created later" join it in the same transaction,
 * with their INSTALL events (lib/oauth/future-installs.ts).
 */
export async function createLocation(options: { companyId: string; name: string; actorUserId?: string; now?: Date }) {
  const now = options.now ?? new Date();
  // The new sub-account must be visible to this instance's read cache at once (lib/db/read-cache.ts).
  return changeCachedState(() =>
    db().$transaction(async (tx) => {
      // A share lock on the agency: an agency install choosing "all sub-accounts" takes it exclusively
      // while it lists them, so this sub-account is either listed there or sees that install here.
      const company = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM "Company" WHERE id = ${options.companyId} FOR SHARE`;
      if (company.length === 0) throw notFound(`There is no agency with id ${options.companyId}.`);
      const location = await tx.location.create({
        data: { companyId: options.companyId, name: options.name, createdAt: now },
      });
      await recordAudit(tx, {
        companyId: options.companyId,
        locationId: location.id,
        actorUserId: options.actorUserId,
        action: "location_created",
        targetId: location.id,
        details: { name: location.name },
      });
      await installAppsOnNewSubAccount(tx, location, now);
      return location;
    }, TRANSACTION_OPTIONS),
  );
}

export async function listLocations(companyId: string) {
  return db().location.findMany({ where: { companyId }, orderBy: [{ name: "asc" }, { id: "asc" }] });
}

/** The agency's name, for the signed-in shell's header. */
export async function companyName(companyId: string): Promise<string> {
  return (await db().company.findUniqueOrThrow({ where: { id: companyId }, select: { name: true } })).name;
}

/**
 * A sub-account the person may open, or null: "does not exist" and "not yours" are one answer, so
 * ids of other agencies are not disclosed.
 */
export async function findAccessibleLocation(actor: Actor, locationId: string) {
  const location = await db().location.findUnique({ where: { id: locationId } });
  return location && canAccessLocation(actor, location) ? location : null;
}
