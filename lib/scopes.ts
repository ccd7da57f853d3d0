import { z } from "zod";

/**
 * The one scope catalog: every scope and the levels it applies at, as SPEC.md lists them:
 * `oauth.readonly`, `oauth.write`, `locations.write` agency only (and ours,
 * `private-integrations.readonly` and `private-integrations.write`); `locations.readonly`,
 * `users.readonly`, `users.write` both; every other scope sub-account only (also `companies.*`,
 * `snapshots.*` and `saas/*`, which the platform's own table puts elsewhere: SPEC.md decides).
 * Apps may request any; a token carries the granted scopes valid at its own level; the
 * private-integration screens offer only the scopes valid at theirs.
 */
export type ScopeLevel = "agency" | "location";

interface ScopeInfo {
  levels: readonly ScopeLevel[];
  group: string;
  description: string;
}

const both = ["agency", "location"] as const;
const agency = ["agency"] as const;
const location = ["location"] as const;
const scope = (levels: readonly ScopeLevel[], group: string, description: string): ScopeInfo => ({
  levels,
  group,
  description,
});

export const scopeCatalog = {
  "oauth.readonly": scope(agency, "OAuth", "See the sub-accounts the app is installed on"),
  "oauth.write": scope(agency, "OAuth", "Exchange an agency token for sub-account tokens"),
  "locations.write": scope(agency, "Sub-accounts", "Create and change sub-accounts"),
  // Ours: the management API of private integrations (SPEC.md › Private integrations under automation).
  "private-integrations.readonly": scope(
    agency,
    "Private integrations",
    "See the agency's and its sub-accounts' private integrations (never their tokens)",
  ),
  "private-integrations.write": scope(
    agency,
    "Private integrations",
    "Create, edit, rotate and delete private integrations (includes seeing them)",
  ),
  "locations.readonly": scope(both, "Sub-accounts", "See sub-account details"),
  "locations/customFields.readonly": scope(location, "Sub-accounts", "See custom fields"),
  "locations/customFields.write": scope(location, "Sub-accounts", "Change custom fields"),
  "locations/customValues.readonly": scope(location, "Sub-accounts", "See custom values"),
  "locations/customValues.write": scope(location, "Sub-accounts", "Change custom values"),
  "locations/tags.readonly": scope(location, "Sub-accounts", "See tags"),
  "locations/tags.write": scope(location, "Sub-accounts", "Change tags"),
  "locations/templates.readonly": scope(location, "Sub-accounts", "See templates"),
  "locations/tasks.readonly": scope(location, "Sub-accounts", "See tasks"),
  "locations/tasks.write": scope(location, "Sub-accounts", "Change tasks"),
  "users.readonly": scope(both, "Users", "See users"),
  "users.write": scope(both, "Users", "Create and change users"),
  "companies.readonly": scope(location, "Agency", "See agency details"),
  "snapshots.readonly": scope(location, "Agency", "See snapshots"),
  "saas/company.read": scope(location, "Agency", "See SaaS settings of the agency"),
  "saas/company.write": scope(location, "Agency", "Change SaaS settings of the agency"),
  "saas/location.read": scope(location, "Agency", "See SaaS settings of sub-accounts"),
  "saas/location.write": scope(location, "Agency", "Change SaaS settings of sub-accounts"),
  "businesses.readonly": scope(location, "Businesses", "See businesses"),
  "businesses.write": scope(location, "Businesses", "Create and change businesses"),
  "contacts.readonly": scope(location, "Contacts", "See contacts"),
  "contacts.write": scope(location, "Contacts", "Create and change contacts"),
  "objects/schema.readonly": scope(location, "Objects", "See object schemas"),
  "objects/schema.write": scope(location, "Objects", "Change object schemas"),
  "objects/record.readonly": scope(location, "Objects", "See object records"),
  "objects/record.write": scope(location, "Objects", "Change object records"),
  "associations.readonly": scope(location, "Objects", "See associations"),
  "associations.write": scope(location, "Objects", "Change associations"),
  "calendars.readonly": scope(location, "Calendars", "See calendars"),
  "calendars.write": scope(location, "Calendars", "Change calendars"),
  "calendars/events.readonly": scope(location, "Calendars", "See calendar events"),
  "calendars/events.write": scope(location, "Calendars", "Change calendar events"),
  "calendars/groups.readonly": scope(location, "Calendars", "See calendar groups"),
  "calendars/groups.write": scope(location, "Calendars", "Change calendar groups"),
  "calendars/resources.readonly": scope(location, "Calendars", "See calendar resources"),
  "calendars/resources.write": scope(location, "Calendars", "Change calendar resources"),
  "campaigns.readonly": scope(location, "Marketing", "See campaigns"),
  "conversations.readonly": scope(location, "Conversations", "See conversations"),
  "conversations.write": scope(location, "Conversations", "Change conversations"),
  "conversations/message.readonly": scope(location, "Conversations", "See messages"),
  "conversations/message.write": scope(location, "Conversations", "Send messages"),
  "conversations/reports.readonly": scope(location, "Conversations", "See conversation reports"),
  "courses.write": scope(location, "Memberships", "Import courses"),
  "forms.readonly": scope(location, "Marketing", "See forms"),
  "forms.write": scope(location, "Marketing", "Change forms"),
  "funnels/funnel.readonly": scope(location, "Sites", "See funnels"),
  "funnels/page.readonly": scope(location, "Sites", "See funnel pages"),
  "funnels/redirect.readonly": scope(location, "Sites", "See redirects"),
  "funnels/redirect.write": scope(location, "Sites", "Change redirects"),
  "invoices.readonly": scope(location, "Payments", "See invoices"),
  "invoices.write": scope(location, "Payments", "Create and change invoices"),
  "invoices/schedule.readonly": scope(location, "Payments", "See invoice schedules"),
  "invoices/schedule.write": scope(location, "Payments", "Change invoice schedules"),
  "invoices/template.readonly": scope(location, "Payments", "See invoice templates"),
  "invoices/template.write": scope(location, "Payments", "Change invoice templates"),
  "links.readonly": scope(location, "Marketing", "See trigger links"),
  "links.write": scope(location, "Marketing", "Change trigger links"),
  "medias.readonly": scope(location, "Media", "See media files"),
  "medias.write": scope(location, "Media", "Upload and change media files"),
  "opportunities.readonly": scope(location, "Opportunities", "See opportunities"),
  "opportunities.write": scope(location, "Opportunities", "Change opportunities"),
  "payments/orders.readonly": scope(location, "Payments", "See orders"),
  "payments/orders.write": scope(location, "Payments", "Change orders"),
  "payments/integration.readonly": scope(location, "Payments", "See payment integrations"),
  "payments/integration.write": scope(location, "Payments", "Change payment integrations"),
  "payments/transactions.readonly": scope(location, "Payments", "See transactions"),
  "payments/subscriptions.readonly": scope(location, "Payments", "See subscriptions"),
  "payments/coupons.readonly": scope(location, "Payments", "See coupons"),
  "payments/coupons.write": scope(location, "Payments", "Change coupons"),
  "products.readonly": scope(location, "Products", "See products"),
  "products.write": scope(location, "Products", "Change products"),
  "products/prices.readonly": scope(location, "Products", "See prices"),
  "products/prices.write": scope(location, "Products", "Change prices"),
  "products/collection.readonly": scope(location, "Products", "See product collections"),
  "products/collection.write": scope(location, "Products", "Change product collections"),
  "socialplanner/account.readonly": scope(location, "Social planner", "See social accounts"),
  "socialplanner/account.write": scope(location, "Social planner", "Change social accounts"),
  "socialplanner/post.readonly": scope(location, "Social planner", "See social posts"),
  "socialplanner/post.write": scope(location, "Social planner", "Change social posts"),
  "store/shipping.readonly": scope(location, "Store", "See shipping settings"),
  "store/shipping.write": scope(location, "Store", "Change shipping settings"),
  "store/setting.readonly": scope(location, "Store", "See store settings"),
  "store/setting.write": scope(location, "Store", "Change store settings"),
  "surveys.readonly": scope(location, "Marketing", "See surveys"),
  "workflows.readonly": scope(location, "Automation", "See workflows"),
  "emails/builder.readonly": scope(location, "Marketing", "See e-mail templates"),
  "emails/builder.write": scope(location, "Marketing", "Change e-mail templates"),
  "blogs/post.write": scope(location, "Sites", "Write blog posts"),
  "blogs/post-update.write": scope(location, "Sites", "Update blog posts"),
  "blogs/category.readonly": scope(location, "Sites", "See blog categories"),
  "blogs/author.readonly": scope(location, "Sites", "See blog authors"),
} as const satisfies Record<string, ScopeInfo>;

export type Scope = keyof typeof scopeCatalog;
export const allScopes = Object.keys(scopeCatalog) as Scope[];
export const scopeSchema = z.enum(allScopes as [Scope, ...Scope[]], {
  error: (issue) => `"${String(issue.input).slice(0, 60)}" is not a known scope.`,
});

export function isScope(name: string): name is Scope {
  return Object.hasOwn(scopeCatalog, name);
}

export function scopeLevels(scope: Scope): readonly ScopeLevel[] {
  return scopeCatalog[scope].levels;
}

// Computed once: every verified request narrows its token's scopes to its level.
const scopesByLevel: Record<ScopeLevel, readonly Scope[]> = {
  agency: allScopes.filter((s) => scopeLevels(s).includes("agency")),
  location: allScopes.filter((s) => scopeLevels(s).includes("location")),
};

export function scopesForLevel(level: ScopeLevel): Scope[] {
  return [...scopesByLevel[level]];
}

/** The granted scopes that apply at `level`, in catalog order. */
export function scopesAtLevel(scopes: readonly string[], level: ScopeLevel): Scope[] {
  const granted = new Set(scopes);
  return scopesByLevel[level].filter((s) => granted.has(s));
}

/** Scopes that include others: SPEC.md says `private-integrations.write` includes `.readonly`. */
const includedScopes: Partial<Record<Scope, readonly Scope[]>> = {
  "private-integrations.write": ["private-integrations.readonly"],
};

/** The scopes `scopes` hold, with those they include. */
export function heldScopes(scopes: readonly string[]): Set<string> {
  return new Set([...scopes, ...scopes.flatMap((s) => (isScope(s) ? (includedScopes[s] ?? []) : []))]);
}

/** Whether `scopes` hold `scope`, itself or through a scope that includes it. */
export function holdsScope(scopes: readonly string[], scope: Scope): boolean {
  return scopes.includes(scope) || heldScopes(scopes).has(scope);
}

/** "a b c" → unique names, in order; unknown names are returned separately. */
export function splitScopeString(value: string): { known: Scope[]; unknown: string[] } {
  const names = [...new Set(value.split(" ").filter(Boolean))];
  return {
    known: names.filter(isScope),
    unknown: names.filter((n) => !isScope(n)),
  };
}

/**
 * Scopes grouped for the pickers, each group in catalog order: those valid at `level` (the
 * private-integration screens), or every scope when no level is given (apps may request any).
 */
export function scopeGroups(
  level?: ScopeLevel,
): { group: string; scopes: { name: Scope; description: string; levels: readonly ScopeLevel[] }[] }[] {
  const groups = new Map<string, { name: Scope; description: string; levels: readonly ScopeLevel[] }[]>();
  for (const name of level ? scopesByLevel[level] : allScopes) {
    const info = scopeCatalog[name];
    const list = groups.get(info.group) ?? [];
    list.push({ name, description: info.description, levels: info.levels });
    groups.set(info.group, list);
  }
  return [...groups].map(([group, scopes]) => ({ group, scopes }));
}
