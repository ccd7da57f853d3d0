/**
 * Redirect URI rules (RFC 6749 §3.1.2, RFC 8252 §7.3, OAuth 2.0 Security BCP): absolute, https or
 * http on a loopback host, no fragment, no credentials. At authorization time the request's
 * redirect_uri must equal a registered one exactly, character for character.
 */
export const MAX_URI_LENGTH = 2000;

const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function isLoopbackHost(hostname: string): boolean {
  return loopbackHosts.has(hostname.toLowerCase()) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** `uri` as an absolute URL of at most MAX_URI_LENGTH characters, or why it is not one (`what`: "a redirect URI"). */
function absoluteUrl(uri: string, what: string, example: string): URL | string {
  if (uri.length > MAX_URI_LENGTH) return `Use ${what} of at most ${MAX_URI_LENGTH} characters.`;
  try {
    return new URL(uri);
  } catch {
    return `"${uri.slice(0, 80)}" is not an absolute URL; use one such as ${example}.`;
  }
}

/** Why `uri` cannot be registered as a redirect URI, or undefined when it can. */
export function redirectUriProblem(uri: string): string | undefined {
  const url = absoluteUrl(uri, "a redirect URI", "https://app.example.com/oauth/callback");
  if (typeof url === "string") return url;
  if (url.protocol === "http:") {
    if (!isLoopbackHost(url.hostname)) {
      return `Use https for ${url.origin}; plain http is allowed only on localhost, 127.0.0.1 or [::1].`;
    }
  } else if (url.protocol !== "https:") {
    return `Use an https (or loopback http) redirect URI, not ${url.protocol.replace(":", "")}.`;
  }
  if (uri.includes("#")) return "A redirect URI cannot contain a fragment (#…).";
  if (url.username || url.password) return "A redirect URI cannot contain a user name or password.";
  return undefined;
}

/**
 * Why `uri` cannot be a webhook URL, or undefined. Its target (loopback, private) is checked after
 * it, by `checkWebhookTarget` (settings.ts), and again at delivery.
 */
export function webhookUrlProblem(uri: string): string | undefined {
  const url = absoluteUrl(uri, "a webhook URL", "https://app.example.com/webhooks");
  if (typeof url === "string") return url;
  if (url.protocol !== "https:" && url.protocol !== "http:") return "Use an https webhook URL.";
  if (url.username || url.password) return "A webhook URL cannot contain a user name or password.";
  if (uri.includes("#")) return "A webhook URL cannot contain a fragment (#…).";
  return undefined;
}
