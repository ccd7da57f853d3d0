/**
 * Whether a URL's hostname is an IP address (`127.0.0.1`, `[::1]`): WebAuthn needs a domain as its
 * relying party, so browsers offer no passkeys there. Pure, for the screens and the server alike.
 */
export function isIpAddressHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "");
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":");
}
