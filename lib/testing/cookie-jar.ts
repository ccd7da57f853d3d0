import type { CookieJar } from "@/lib/auth/sign-in";

/** A browser's cookies for the sign-in steps, in memory: one jar per simulated browser. */
export function memoryCookieJar(initial: Record<string, string> = {}): CookieJar & { all(): Record<string, string> } {
  const store = new Map(Object.entries(initial));
  return {
    get: (name) => store.get(name),
    set: (name, value) => void store.set(name, value),
    delete: (name) => void store.delete(name),
    all: () => Object.fromEntries(store),
  };
}
