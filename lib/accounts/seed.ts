import { randomBytes } from "node:crypto";
import { db } from "@/lib/db/client";
import { createCompany } from "./companies";
import { createUser } from "./users";

export interface SeedResult {
  companyId: string;
  email: string;
  /** Only when we generated it: shown once, never stored in plain text. */
  generatedPassword?: string;
}

/**
 * On an empty database: the agency "Demo Agency" and its owner, from SEED_ADMIN_EMAIL /
 * SEED_ADMIN_PASSWORD or with a generated password. Does nothing once any agency exists.
 */
export async function seedIfEmpty(options: { email?: string; password?: string }): Promise<SeedResult | undefined> {
  if ((await db().company.count()) > 0) return undefined;
  const email = options.email ?? "admin@example.com";
  const generatedPassword = options.password ? undefined : randomBytes(12).toString("base64url");
  const company = await createCompany({ name: "Demo Agency" });
  await createUser({
    email,
    password: options.password ?? (generatedPassword as string),
    name: "Agency Owner",
    role: "agency_owner",
    companyId: company.id,
  });
  return { companyId: company.id, email, generatedPassword };
}
