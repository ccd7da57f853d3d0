import type { UserType } from "@/lib/generated/prisma/client";
import { invalidGrant } from "../errors";

export const userTypes = ["Company", "Location"] as const satisfies readonly UserType[];

/**
 * The optional user_type of both grants (SPEC.md): absent, the installation's or grant's own level
 * is used, so RFC 6749 clients that send only the standard parameters work unchanged.
 */
export function parseUserType(value: string | undefined): UserType | undefined {
  if (value === undefined) return undefined;
  // SPEC.md: a user_type that does not match the installation is invalid_grant; a value that
  // matches no installation at all is the same case.
  if (!(userTypes as readonly string[]).includes(value)) {
    throw invalidGrant(`user_type must be Company or Location, not "${value.slice(0, 40)}".`);
  }
  return value as UserType;
}
