import type { UserType } from "@/lib/generated/prisma/client";
import { invalidRequest } from "../errors";

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
  if (!(userTypes as readonly string[]).includes(value)) {
    throw invalidRequest(`user_type must be Company or Location, not "${value.slice(0, 40)}".`);
  }
  return value as UserType;
}
