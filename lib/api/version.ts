import { HttpError } from "./http-error";

/** The platform's dated API versions (SPEC.md, API endpoints). */
export const apiVersions = ["2021-04-15", "2021-07-28", "2023-02-21"] as const;
export type ApiVersion = (typeof apiVersions)[number];

export function requireVersion(request: Request): ApiVersion {
  const value = request.headers.get("version");
  if ((apiVersions as readonly string[]).includes(value ?? "")) return value as ApiVersion;
  const accepted = apiVersions.join(", ");
  throw new HttpError(
    "invalid_version",
    value
      ? `The Version header "${value.slice(0, 40)}" is not supported. Send one of: ${accepted}.`
      : `The Version header is required. Send one of: ${accepted}.`,
  );
}
