import { describe, expect, it } from "vitest";
import { heldScopes, mayManageIntegrations, requireNoEscalation } from "./no-escalation";

const caller = ["private-integrations.write", "locations.readonly", "contacts.write"];

describe("no escalation through the management API", () => {
  it.each([
    ["its own scopes", ["locations.readonly", "contacts.write"]],
    ["some of them", ["contacts.write"]],
    ["private-integrations.readonly, which .write includes", ["private-integrations.readonly"]],
    ["none", []],
  ])("gives %s", (_name, requested) => {
    expect(() => requireNoEscalation(caller, requested)).not.toThrow();
  });

  it("never gives private-integrations.write, even though it holds it", () => {
    expect(() => requireNoEscalation(caller, ["private-integrations.write"])).toThrow(
      expect.objectContaining({ kind: "forbidden", message: expect.stringContaining("private-integrations.write") }),
    );
  });

  it("refuses scopes it does not hold, naming them", () => {
    expect(() => requireNoEscalation(caller, ["contacts.write", "users.write", "oauth.write"])).toThrow(
      expect.objectContaining({ kind: "forbidden", message: expect.stringContaining("users.write, oauth.write") }),
    );
    expect(() =>
      requireNoEscalation(["private-integrations.readonly"], ["private-integrations.readonly"]),
    ).not.toThrow();
  });

  it(".write includes .readonly; .readonly reads only", () => {
    expect([...heldScopes(["private-integrations.write"])].sort()).toEqual([
      "private-integrations.readonly",
      "private-integrations.write",
    ]);
    expect(mayManageIntegrations(["private-integrations.write"], "read")).toBe(true);
    expect(mayManageIntegrations(["private-integrations.write"], "write")).toBe(true);
    expect(mayManageIntegrations(["private-integrations.readonly"], "read")).toBe(true);
    expect(mayManageIntegrations(["private-integrations.readonly"], "write")).toBe(false);
    expect(mayManageIntegrations(["locations.readonly"], "read")).toBe(false);
  });
});
