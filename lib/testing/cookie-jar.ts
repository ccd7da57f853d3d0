import type { CookieJar } from "@/lib/auth/sign-in";
import { peerAddressHeader } from "@/lib/client-address";

/** The headers a browser's sign-in request carries: its address (as the server records it) and its user agent. */
export const browserHeaders = (address: string, userAgent = "Mozilla/5.0 Firefox/140.0") => ({
  [peerAddressHeader]: address,
  "user-agent": userAgent,
});

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
