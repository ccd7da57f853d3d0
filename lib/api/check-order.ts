/**
 * The order of the checks on the endpoints that tokens unlock: the first that fails answers. Written
 * here once; lib/api/token-route.ts runs them in this order, and /openapi.json (its description and
 * `x-check-order`), /docs and README › API print or link to this list.
 */
export const checkSteps = [
  {
    check: "Version header: 400 invalid_version.",
    why: "Cheapest, and says nothing about anyone.",
  },
  {
    check:
      "Bearer authentication: 401 invalid_token (also a private integration past its Expires date, naming the date); 403 forbidden when a private integration's Allowed IP addresses do not include the caller's address (naming the rule and the address).",
    why: "The caller must be known before it is counted.",
  },
  {
    check: "Rate limit: 429 rate_limited (every authenticated request counts).",
    why: "Refused requests count too, so probing scopes or ids costs quota like any other call.",
  },
  {
    check:
      "Token level: 403 forbidden when an agency-level token calls a sub-account endpoint (before the scope, since such a token can never hold a sub-account scope).",
    why: 'Before the scope: "add the scope" would send an agency-level caller the wrong way. An endpoint only agency private integrations call (the management API) refuses any other token here too.',
  },
  {
    check: "Scope: 403 insufficient_scope naming the scope.",
    why: "Named, so the caller knows what to ask for.",
  },
  {
    check:
      "Body or query: 400 invalid_request naming the field (also when too large). It depends on the request alone, so it reveals nothing about other accounts.",
    why: "Before the sub-account check, because the sub-account id may be in the body.",
  },
  {
    check:
      "Access to the addressed sub-account: 403 forbidden, the same whether or not it exists; an agency private integration limited to chosen Sub-accounts gets 403 forbidden naming that rule for any other sub-account of its agency.",
    why: "The same answer whether or not it exists, so ids reveal nothing.",
  },
  {
    check: "The data: 404 not_found, 409 conflict.",
    why: "Only once the caller may see the sub-account.",
  },
] as const;

/** The checks as the OpenAPI document states them. */
export const checkOrder: string[] = checkSteps.map((step) => step.check);
