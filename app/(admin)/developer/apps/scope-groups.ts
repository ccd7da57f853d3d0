import type { ScopeGroup } from "@/components/developer/app-form";
import { allScopes, scopeCatalog } from "@/lib/scopes";

/** Every scope of the catalog, grouped, with the levels it applies at (apps may request any). */
export function allScopeGroups(): ScopeGroup[] {
  const groups = new Map<string, ScopeGroup["scopes"]>();
  for (const name of allScopes) {
    const info = scopeCatalog[name];
    const levels = info.levels.map((l) => (l === "agency" ? "agency" : "sub-account")).join(" + ");
    const list = groups.get(info.group) ?? [];
    list.push({ name, description: info.description, levels });
    groups.set(info.group, list);
  }
  return [...groups].map(([group, scopes]) => ({ group, scopes }));
}
