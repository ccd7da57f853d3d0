import { describe, expect, it } from "vitest";
import { allScopes, holdsScope, scopeGroups, scopesAtLevel } from "./scopes";

describe("the scope catalog", () => {
  it("groups every scope for apps, and only a level's scopes for that level's pickers", () => {
    const names = (groups: ReturnType<typeof scopeGroups>) => groups.flatMap((g) => g.scopes.map((s) => s.name));
    expect(names(scopeGroups()).sort()).toEqual([...allScopes].sort());
    const agency = names(scopeGroups("agency"));
    const location = names(scopeGroups("location"));
    expect(agency).toEqual(
      expect.arrayContaining(["oauth.write", "locations.write", "locations.readonly", "users.write"]),
    );
    expect(agency).not.toContain("contacts.write");
    expect(location).toEqual(expect.arrayContaining(["contacts.write", "businesses.readonly", "locations.readonly"]));
    expect(location).not.toContain("oauth.write");
    // Ours, SPEC.md › Private integrations under automation: agency only.
    expect(agency).toEqual(expect.arrayContaining(["private-integrations.readonly", "private-integrations.write"]));
    expect(location).not.toContain("private-integrations.readonly");
    expect(location).not.toContain("private-integrations.write");
    expect(
      scopeGroups()
        .flatMap((g) => g.scopes)
        .find((s) => s.name === "users.readonly")?.levels,
    ).toEqual(["agency", "location"]);
  });

  it("private-integrations.write includes .readonly (SPEC.md), and nothing else includes another scope", () => {
    expect(holdsScope(["private-integrations.write"], "private-integrations.readonly")).toBe(true);
    expect(holdsScope(["private-integrations.readonly"], "private-integrations.write")).toBe(false);
    expect(holdsScope(["contacts.write"], "contacts.readonly")).toBe(false);
    expect(holdsScope(["contacts.readonly"], "contacts.readonly")).toBe(true);
  });

  it("narrows granted scopes to a token's level", () => {
    expect(scopesAtLevel(["contacts.write", "oauth.write", "locations.readonly"], "location")).toEqual([
      "locations.readonly",
      "contacts.write",
    ]);
  });
});
