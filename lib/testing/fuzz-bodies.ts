import fc from "fast-check";
import { anyJsonValue, enc, type FuzzSecrets, knownFields, nastyString } from "./fuzz-values";

/** Request bodies for the fuzzer (./fuzz.ts): plausible fields in every encoding, and broken ones. */

const encoder = new TextEncoder();

function formEncode(pairs: [string, string][], breakEncoding: boolean): string {
  const text = pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&");
  return breakEncoding ? `${text}&bad=%E0%A4%A&x=%zz%` : text;
}

function multipart(pairs: [string, string][], boundary: string): string {
  return `${pairs
    .map(([k, v]) => `--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join("")}--${boundary}--\r\n`;
}

/** A value that a field of this name could plausibly hold, so requests get past validation. */
function plausible(field: string, secrets: FuzzSecrets): fc.Arbitrary<unknown> {
  const real = (xs: string[]) => (xs.length ? fc.constantFrom(...xs) : nastyString);
  switch (field) {
    case "grant_type":
      return fc.constantFrom("authorization_code", "refresh_token", "client_credentials");
    case "client_id":
      return real(secrets.clientIds);
    case "client_secret":
      return real(secrets.clientSecrets);
    case "code":
      return real(secrets.codes);
    case "refresh_token":
      return real(secrets.refreshTokens);
    case "token":
      return real([...secrets.bearer, ...secrets.refreshTokens]);
    case "user_type":
      return fc.constantFrom("Company", "Location");
    case "token_type_hint":
      return fc.constantFrom("access_token", "refresh_token");
    case "redirect_uri":
      return fc.constant("https://app.example.test/oauth/callback");
    case "code_verifier":
      return fc.base64String({ minLength: 43, maxLength: 64 });
    case "companyId":
    case "locationId":
    case "appId":
      return real(secrets.ids);
    case "firstName":
    case "lastName":
      return fc.constantFrom("Ada", "Grace", "Zoë", "O'Brien");
    case "email":
      return fc.oneof(
        fc.uuid().map((u) => `${u.slice(0, 8)}@example.com`),
        fc.constant("ada@example.com"),
      );
    case "phone":
      return fc.constantFrom("+14155550123", "+442071838750");
    case "command":
      return fc.constantFrom("company:create", "labs:set", "nope");
    case "flags":
      return fc.dictionary(fc.constantFrom("name", "company", "enabled"), fc.string({ maxLength: 10 }));
    default:
      return nastyString;
  }
}

/**
 * A request object: each known field maybe present, mostly with a plausible value (real ids,
 * codes and secrets), sometimes with garbage or the wrong JSON type; plus unknown fields.
 */
function fieldObject(secrets: FuzzSecrets) {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of knownFields) {
    if (field === "__proto__" || field === "constructor") continue;
    fields[field] = fc.oneof(
      { weight: 6, arbitrary: plausible(field, secrets) },
      { weight: 1, arbitrary: nastyString },
      { weight: 1, arbitrary: anyJsonValue },
    );
  }
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: [] }),
      fc.array(fc.tuple(fc.oneof(fc.constantFrom("__proto__", "constructor"), nastyString), anyJsonValue), {
        maxLength: 2,
      }),
    )
    .map(([known, extra]) => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of [...Object.entries(known), ...extra])
        Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
      return o;
    });
}

const asFormValue = (v: unknown) => (typeof v === "string" ? v : (JSON.stringify(v) ?? ""));

/** A whole body: forms and JSON of plausible fields, random bytes (invalid UTF-8), huge, multipart. */
export function bodyArbitrary(secrets: FuzzSecrets, maxHuge = 2 * 1024 * 1024) {
  const object = fieldObject(secrets);
  const pairs = object.map((o) => Object.entries(o).map(([k, v]) => [k, asFormValue(v)] as [string, string]));
  return fc.oneof(
    {
      weight: 1,
      arbitrary: fc.constant({
        kind: "none",
        bytes: undefined as Uint8Array | undefined,
        contentType: undefined as string | undefined,
      }),
    },
    {
      weight: 4,
      arbitrary: fc.tuple(pairs, fc.boolean(), fc.integer({ min: 0, max: 9 })).map(([p, broken, dup]) => ({
        kind: "form",
        bytes: encoder.encode(formEncode(dup === 0 ? [...p, ...p] : p, broken && dup === 1)),
        contentType: "application/x-www-form-urlencoded",
      })),
    },
    {
      weight: 4,
      arbitrary: object.map((o) => ({
        kind: "json object",
        bytes: encoder.encode(JSON.stringify(o)),
        contentType: "application/json",
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 2048 })
        .map((bytes) => ({ kind: "random bytes", bytes, contentType: undefined })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(64 * 1024 + 1, 1024 * 1024 + 1, maxHuge), fc.integer({ min: 0, max: 255 }))
        .map(([size, byte]) => ({
          kind: `huge (${size} bytes of ${byte})`,
          bytes: new Uint8Array(size).fill(byte),
          contentType: undefined,
        })),
    },
    {
      weight: 1,
      arbitrary: anyJsonValue.map((v) => ({
        kind: "json value",
        bytes: encoder.encode(JSON.stringify(v) ?? ""),
        contentType: "application/json",
      })),
    },
    {
      weight: 1,
      arbitrary: object.map((o) => {
        // Duplicated keys, which JSON.stringify cannot write.
        const entries = Object.entries(o).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"}`);
        return {
          kind: "json with duplicate keys",
          bytes: encoder.encode(`{${[...entries, ...entries].join(",")}}`),
          contentType: "application/json",
        };
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(pairs, fc.uint8Array({ minLength: 1, maxLength: 64 })).map(([p, junk]) => ({
        kind: "form with invalid UTF-8",
        bytes: new Uint8Array([...encoder.encode(formEncode(p, false)), 0x26, 0x78, 0x3d, ...junk, 0xc3, 0x28, 0xff]),
        contentType: "application/x-www-form-urlencoded",
      })),
    },
    {
      weight: 1,
      arbitrary: pairs.map((p) => ({
        kind: "multipart",
        bytes: encoder.encode(multipart(p, "fuzzboundary")),
        contentType: "multipart/form-data; boundary=fuzzboundary",
      })),
    },
  );
}
