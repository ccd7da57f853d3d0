import { db } from "@/lib/db/client";
import { recordAudit } from "./audit";

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
