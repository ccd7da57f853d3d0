/**
 * The install (authorization) screen's query, RFC 6749 §4.1 with PKCE (RFC 7636). A parameter
 * given twice is kept as DUPLICATE, which validation refuses (RFC 6749 §3.1).
 */

export interface AuthorizeParams {
  response_type?: string | null;
  client_id?: string | null;
  redirect_uri?: string | null;
  scope?: string | null;
  state?: string | null;
  code_challenge?: string | null;
  code_challenge_method?: string | null;
}

/** Stands for a parameter sent more than once. */
export const DUPLICATE = "\u0000duplicate";

/** Reads the query of /oauth/chooselocation; a parameter given twice counts as invalid. */
export function authorizeParamsFrom(search: URLSearchParams | Record<string, string | string[] | undefined>) {
  const get = (name: keyof AuthorizeParams): string | null => {
    const value = search instanceof URLSearchParams ? search.getAll(name) : search[name];
    if (value === undefined) return null;
    if (Array.isArray(value)) return value.length === 1 ? (value[0] ?? null) : DUPLICATE;
    return value;
  };
  return {
    response_type: get("response_type"),
    client_id: get("client_id"),
    redirect_uri: get("redirect_uri"),
    scope: get("scope"),
    state: get("state"),
    code_challenge: get("code_challenge"),
    code_challenge_method: get("code_challenge_method"),
  } satisfies AuthorizeParams;
}

/** Appends query parameters to a registered redirect URI, keeping the query it already has. */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(key, value);
  }
  return url.toString();
}
