/**
 * Where to send a browser back to after signing in: a path of our own origin, decided in one place
 * for the login page (server and client), next-auth's redirect callback and the sign-in-and-back
 * redirect. Framework-free, so the browser runs the same rule.
 *
 * Browsers read `\` as `/` and drop tabs and newlines inside URLs, so `/\evil.example` and
 * `/\t/evil.example` are another origin to them even where a string check sees a path. The URL is
 * therefore refused outright when it holds a backslash or a control character, and otherwise
 * parsed against our origin as a browser would: only a result on that same origin is kept.
 *
 * A path of our origin can still begin with `//` (`/.//evil.example/x` and `/%2e//evil.example`
 * resolve to the path `//evil.example/x`), and a path beginning with `//` names a host when it is
 * followed. So a leading run of slashes is collapsed to one: the path then resolves against our
 * origin to our origin, whatever the input (same-origin.test.ts proves it as a property).
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly what must be refused.
const unsafeCharacters = /[\\\u0000-\u001F\u007F-\u009F]/;

/**
 * The same-origin path (with query and fragment) that `url` names relative to `origin`, or null
 * when it names another origin or is not a usable URL.
 */
export function sameOriginPath(url: string | null | undefined, origin: string): string | null {
  if (!url || url.length > 2000 || unsafeCharacters.test(url)) return null;
  let base: URL;
  let target: URL;
  try {
    base = new URL(origin);
    target = new URL(url, base);
  } catch {
    return null;
  }
  if (target.origin !== base.origin) return null;
  return `${target.pathname.replace(/^[/\\]+/, "/")}${target.search}${target.hash}`;
}

/** `sameOriginPath`, or `fallback` when the URL is not ours. */
export function safeReturnPath(url: string | null | undefined, origin: string, fallback = "/settings"): string {
  return sameOriginPath(url, origin) ?? fallback;
}
