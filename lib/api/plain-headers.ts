/**
 * Which headers `Headers` would hold exactly as given (./json-response.ts keeps those in a plain map
 * instead of building a `Headers` for them).
 */

/** A header name `Headers` takes as it is (an RFC 9110 token). */
export const PLAIN_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A value `Headers` keeps as it is: visible ASCII with inner spaces, nothing to trim, nothing to refuse. */
export const PLAIN_VALUE = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;

/**
 * Names seen to be plain and already lower case, as `Headers` holds them: the API's few header
 * names are checked once each rather than on every answer (at most MAX_KNOWN_NAMES are kept).
 */
const lowerPlainNames = new Set<string>();
const MAX_KNOWN_NAMES = 256;

/** `name` as `Headers` holds it, when it is a plain name; undefined otherwise. */
export function plainName(name: string): string | undefined {
  if (lowerPlainNames.has(name)) return name;
  if (!PLAIN_NAME.test(name)) return undefined;
  const lower = name.toLowerCase();
  if (lower === "set-cookie") return undefined;
  if (lower === name && lowerPlainNames.size < MAX_KNOWN_NAMES) lowerPlainNames.add(name);
  return lower;
}

/** Whether `Headers` would take this header unchanged (set-cookie, which it keeps apart, aside). */
function isPlain(name: string, value: unknown): value is string {
  return typeof value === "string" && plainName(name) !== undefined && PLAIN_VALUE.test(value);
}

/**
 * A header record as `new Headers(record)` holds it (lower-case names), or undefined when `Headers`
 * would change or refuse any of it, or join a name given twice in different cases.
 */
export function plainFields(record: Record<string, string>): Map<string, string> | undefined {
  const fields = new Map<string, string>();
  for (const name of Object.keys(record)) {
    const value = record[name];
    if (!isPlain(name, value)) return undefined;
    const key = name.toLowerCase();
    if (fields.has(key)) return undefined;
    fields.set(key, value);
  }
  return fields;
}
