import type { UserType } from "@/lib/generated/prisma/client";
import { invalidGrant, invalidRequest } from "../errors";

export const userTypes = ["Company", "Location"] as const satisfies readonly UserType[];

export function parseUserType(value: string | undefined, options: { required: boolean }): UserType | undefined {
  if (value === undefined) {
    if (options.required) {
      throw invalidRequest(
        "user_type is required: Company for an app installed at agency level, Location for one installed in a sub-account.",
      );
    }
    return undefined;
  }
  // SPEC.md: a user_type that does not match the installation is invalid_grant; a value that
  // matches no installation at all is the same case.
  if (!(userTypes as readonly string[]).includes(value)) {
    throw invalidGrant(`user_type must be Company or Location, not "${value.slice(0, 40)}".`);
  }
  return value as UserType;
}
