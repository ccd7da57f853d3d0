import fc from "fast-check";

/** The values request fuzzing (./fuzz.ts) is made of: header bytes, hostile strings, any JSON, field names. */

/** Header values must be bytes (latin-1) without CR/LF, or the Request cannot even be built. */
const headerChar = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  { weight: 1, arbitrary: fc.constant(0x09) },
);
export const headerValue = (maxLength = 120) =>
  fc
    .array(headerChar, { maxLength })
    .map((codes) => String.fromCharCode(...codes).trim())
    .filter((v) => v.length > 0);

/** Strings meant to break parsers: unicode, NUL, percent garbage, SQL and path tricks, long runs. */
export const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "%",
    "%zz",
    "%E0%A4%A",
    "%C0%AF",
    '\'; DROP TABLE "Location"; --',
    "../../etc/passwd",
    "null",
    "undefined",
    "[object Object]",
    "-1",
    "1e309",
    "NaN",
    "true",
    "\uD800",
    "\uFFFF",
    "🙂",
    "a".repeat(5000),
    "pit-00000000-0000-0000-0000-000000000000",
    "Company",
    "Location",
    "authorization_code",
    "refresh_token",
    "+14155550123",
    "grace@example.com",
  ),
);

/** Any JSON value, including deep nesting and the wrong type for every field. */
export const anyJsonValue = fc.oneof(
  { weight: 3, arbitrary: nastyString },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, [], {}) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 50, max: 3000 }).map((depth) => {
      // Deep nesting, built without recursion in the generator.
      let v: unknown = "x";
      for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
      return v;
    }),
  },
);

export const knownFields = [
  "grant_type",
  "client_id",
  "client_secret",
  "code",
  "refresh_token",
  "user_type",
  "redirect_uri",
  "code_verifier",
  "token",
  "token_type_hint",
  "companyId",
  "locationId",
  "appId",
  "firstName",
  "lastName",
  "email",
  "phone",
  "command",
  "flags",
  "__proto__",
  "constructor",
] as const;

export interface FuzzSecrets {
  /** Real, currently valid values, so the fuzzer reaches past authentication. */
  bearer: string[];
  clientIds: string[];
  clientSecrets: string[];
  codes: string[];
  refreshTokens: string[];
  ids: string[];
}

/** Percent-encodes like a client; lone surrogates become U+FFFD first, as any UTF-8 encoder does. */
export const enc = (s: string) => encodeURIComponent(Buffer.from(s, "utf8").toString("utf8"));
