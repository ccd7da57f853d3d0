import { db } from "@/lib/db/client";
import { recordAudit } from "./audit";
import { type Actor, canAccessLocation } from "./permissions";

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
