import { describe, expect, it } from "vitest";
import { safeReturnPath, sameOriginPath } from "./same-origin";

const origin = "http://localhost:3000";

describe("a return path after sign-in stays on our origin", () => {
  it.each([
    ["/settings/team", "/settings/team"],
    [
      "/oauth/chooselocation?client_id=a&redirect_uri=http%3A%2F%2Fx",
      "/oauth/chooselocation?client_id=a&redirect_uri=http%3A%2F%2Fx",
    ],
    ["/settings#x", "/settings#x"],
    ["http://localhost:3000/settings/labs", "/settings/labs"],
    ["settings", "/settings"],
    ["/%5Cevil.example/x", "/%5Cevil.example/x"],
  ])("keeps %s as %s", (url, expected) => {
    expect(sameOriginPath(url, origin)).toBe(expected);
  });

  it.each([
    ["backslash after the slash", "/\\evil.example/x"],
    ["backslashes only", "\\\\evil.example"],
    ["protocol-relative", "//evil.example/x"],
    ["tab inside the scheme-relative prefix", "/\t/evil.example"],
    ["newline", "/\n/evil.example"],
    ["carriage return", "/\r/evil.example"],
    ["NUL", "/\u0000/evil.example"],
    ["DEL", "/\u007F/evil.example"],
    ["another origin", "http://evil.example/x"],
    ["another port", "http://localhost:3001/settings"],
    ["another scheme", "https://localhost:3000/settings"],
    ["javascript:", "javascript:alert(1)"],
    ["data:", "data:text/html,hi"],
    ["empty", ""],
    ["a huge one", `/${"a".repeat(3000)}`],
  ])("refuses %s", (_, url) => {
    expect(sameOriginPath(url, origin)).toBeNull();
    expect(safeReturnPath(url, origin)).toBe("/settings");
  });

  it("refuses every URL when our own origin is not a URL", () => {
    expect(sameOriginPath("/settings", "not a url")).toBeNull();
  });
});

describe("next-auth's redirect callback uses the same rule", () => {
  it.each([
    ["/settings/team", `${origin}/settings/team`],
    ["/\\evil.example/x", `${origin}/`],
    ["http://evil.example/x", `${origin}/`],
    [`${origin}/login`, `${origin}/login`],
  ])("%s → %s", async (url, expected) => {
    const { authOptions } = await import("./options");
    const redirect = authOptions().callbacks?.redirect;
    expect(await redirect?.({ url, baseUrl: origin })).toBe(expected);
  });
});
