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

export const scopeCatalog = {
  "oauth.readonly": { levels: agency, group: "OAuth", description: "See the sub-accounts the app is installed on" },
  "oauth.write": { levels: agency, group: "OAuth", description: "Exchange an agency token for sub-account tokens" },
  "locations.write": { levels: agency, group: "Sub-accounts", description: "Create and change sub-accounts" },
  // Ours: the management API of private integrations (SPEC.md › Private integrations under automation).
  "private-integrations.readonly": {
    levels: agency,
    group: "Private integrations",
    description: "See the agency's and its sub-accounts' private integrations (never their tokens)",
  },
  "private-integrations.write": {
    levels: agency,
    group: "Private integrations",
    description: "Create, edit, rotate and delete private integrations (includes seeing them)",
  },
  "locations.readonly": { levels: both, group: "Sub-accounts", description: "See sub-account details" },
  "locations/customFields.readonly": { levels: location, group: "Sub-accounts", description: "See custom fields" },
  "locations/customFields.write": { levels: location, group: "Sub-accounts", description: "Change custom fields" },
  "locations/customValues.readonly": { levels: location, group: "Sub-accounts", description: "See custom values" },
  "locations/customValues.write": { levels: location, group: "Sub-accounts", description: "Change custom values" },
  "locations/tags.readonly": { levels: location, group: "Sub-accounts", description: "See tags" },
  "locations/tags.write": { levels: location, group: "Sub-accounts", description: "Change tags" },
  "locations/templates.readonly": { levels: location, group: "Sub-accounts", description: "See templates" },
  "locations/tasks.readonly": { levels: location, group: "Sub-accounts", description: "See tasks" },
  "locations/tasks.write": { levels: location, group: "Sub-accounts", description: "Change tasks" },
  "users.readonly": { levels: both, group: "Users", description: "See users" },
  "users.write": { levels: both, group: "Users", description: "Create and change users" },
  "companies.readonly": { levels: location, group: "Agency", description: "See agency details" },
  "snapshots.readonly": { levels: location, group: "Agency", description: "See snapshots" },
  "saas/company.read": { levels: location, group: "Agency", description: "See SaaS settings of the agency" },
  "saas/company.write": { levels: location, group: "Agency", description: "Change SaaS settings of the agency" },
  "saas/location.read": { levels: location, group: "Agency", description: "See SaaS settings of sub-accounts" },
  "saas/location.write": { levels: location, group: "Agency", description: "Change SaaS settings of sub-accounts" },
  "businesses.readonly": { levels: location, group: "Businesses", description: "See businesses" },
  "businesses.write": { levels: location, group: "Businesses", description: "Create and change businesses" },
  "contacts.readonly": { levels: location, group: "Contacts", description: "See contacts" },
  "contacts.write": { levels: location, group: "Contacts", description: "Create and change contacts" },
  "objects/schema.readonly": { levels: location, group: "Objects", description: "See object schemas" },
  "objects/schema.write": { levels: location, group: "Objects", description: "Change object schemas" },
  "objects/record.readonly": { levels: location, group: "Objects", description: "See object records" },
  "objects/record.write": { levels: location, group: "Objects", description: "Change object records" },
  "associations.readonly": { levels: location, group: "Objects", description: "See associations" },
  "associations.write": { levels: location, group: "Objects", description: "Change associations" },
  "calendars.readonly": { levels: location, group: "Calendars", description: "See calendars" },
  "calendars.write": { levels: location, group: "Calendars", description: "Change calendars" },
  "calendars/events.readonly": { levels: location, group: "Calendars", description: "See calendar events" },
  "calendars/events.write": { levels: location, group: "Calendars", description: "Change calendar events" },
  "calendars/groups.readonly": { levels: location, group: "Calendars", description: "See calendar groups" },
  "calendars/groups.write": { levels: location, group: "Calendars", description: "Change calendar groups" },
  "calendars/resources.readonly": { levels: location, group: "Calendars", description: "See calendar resources" },
  "calendars/resources.write": { levels: location, group: "Calendars", description: "Change calendar resources" },
  "campaigns.readonly": { levels: location, group: "Marketing", description: "See campaigns" },
  "conversations.readonly": { levels: location, group: "Conversations", description: "See conversations" },
  "conversations.write": { levels: location, group: "Conversations", description: "Change conversations" },
  "conversations/message.readonly": { levels: location, group: "Conversations", description: "See messages" },
  "conversations/message.write": { levels: location, group: "Conversations", description: "Send messages" },
  "conversations/reports.readonly": {
    levels: location,
    group: "Conversations",
    description: "See conversation reports",
  },
  "courses.write": { levels: location, group: "Memberships", description: "Import courses" },
  "forms.readonly": { levels: location, group: "Marketing", description: "See forms" },
  "forms.write": { levels: location, group: "Marketing", description: "Change forms" },
  "funnels/funnel.readonly": { levels: location, group: "Sites", description: "See funnels" },
  "funnels/page.readonly": { levels: location, group: "Sites", description: "See funnel pages" },
  "funnels/redirect.readonly": { levels: location, group: "Sites", description: "See redirects" },
  "funnels/redirect.write": { levels: location, group: "Sites", description: "Change redirects" },
  "invoices.readonly": { levels: location, group: "Payments", description: "See invoices" },
  "invoices.write": { levels: location, group: "Payments", description: "Create and change invoices" },
  "invoices/schedule.readonly": { levels: location, group: "Payments", description: "See invoice schedules" },
  "invoices/schedule.write": { levels: location, group: "Payments", description: "Change invoice schedules" },
  "invoices/template.readonly": { levels: location, group: "Payments", description: "See invoice templates" },
  "invoices/template.write": { levels: location, group: "Payments", description: "Change invoice templates" },
  "links.readonly": { levels: location, group: "Marketing", description: "See trigger links" },
  "links.write": { levels: location, group: "Marketing", description: "Change trigger links" },
  "medias.readonly": { levels: location, group: "Media", description: "See media files" },
  "medias.write": { levels: location, group: "Media", description: "Upload and change media files" },
  "opportunities.readonly": { levels: location, group: "Opportunities", description: "See opportunities" },
  "opportunities.write": { levels: location, group: "Opportunities", description: "Change opportunities" },
  "payments/orders.readonly": { levels: location, group: "Payments", description: "See orders" },
  "payments/orders.write": { levels: location, group: "Payments", description: "Change orders" },
  "payments/integration.readonly": { levels: location, group: "Payments", description: "See payment integrations" },
  "payments/integration.write": { levels: location, group: "Payments", description: "Change payment integrations" },
  "payments/transactions.readonly": { levels: location, group: "Payments", description: "See transactions" },
  "payments/subscriptions.readonly": { levels: location, group: "Payments", description: "See subscriptions" },
  "payments/coupons.readonly": { levels: location, group: "Payments", description: "See coupons" },
  "payments/coupons.write": { levels: location, group: "Payments", description: "Change coupons" },
  "products.readonly": { levels: location, group: "Products", description: "See products" },
  "products.write": { levels: location, group: "Products", description: "Change products" },
  "products/prices.readonly": { levels: location, group: "Products", description: "See prices" },
  "products/prices.write": { levels: location, group: "Products", description: "Change prices" },
  "products/collection.readonly": { levels: location, group: "Products", description: "See product collections" },
  "products/collection.write": { levels: location, group: "Products", description: "Change product collections" },
  "socialplanner/account.readonly": { levels: location, group: "Social planner", description: "See social accounts" },
  "socialplanner/account.write": { levels: location, group: "Social planner", description: "Change social accounts" },
  "socialplanner/post.readonly": { levels: location, group: "Social planner", description: "See social posts" },
  "socialplanner/post.write": { levels: location, group: "Social planner", description: "Change social posts" },
  "store/shipping.readonly": { levels: location, group: "Store", description: "See shipping settings" },
  "store/shipping.write": { levels: location, group: "Store", description: "Change shipping settings" },
  "store/setting.readonly": { levels: location, group: "Store", description: "See store settings" },
  "store/setting.write": { levels: location, group: "Store", description: "Change store settings" },
  "surveys.readonly": { levels: location, group: "Marketing", description: "See surveys" },
  "workflows.readonly": { levels: location, group: "Automation", description: "See workflows" },
  "emails/builder.readonly": { levels: location, group: "Marketing", description: "See e-mail templates" },
  "emails/builder.write": { levels: location, group: "Marketing", description: "Change e-mail templates" },
  "blogs/post.write": { levels: location, group: "Sites", description: "Write blog posts" },
  "blogs/post-update.write": { levels: location, group: "Sites", description: "Update blog posts" },
  "blogs/category.readonly": { levels: location, group: "Sites", description: "See blog categories" },
  "blogs/author.readonly": { levels: location, group: "Sites", description: "See blog authors" },
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
