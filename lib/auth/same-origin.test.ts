import fc from "fast-check";
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

describe("the return path is same-origin as a property", () => {
  // The pieces a path-confusion attack is made of: slashes of every spelling and dot segments
  // (weighted up, so `/.//x`-shaped paths come up within a few hundred runs), whitespace and
  // control characters browsers drop or rewrite, unicode look-alike slashes, hosts to aim at.
  const slashesAndDots = ["/", "\\", ".", "..", "%2e", "%2f", "%5c"];
  const others = [
    "%2E",
    "%2F",
    "%5C",
    "\t",
    "\n",
    "\r",
    "\u0000",
    "\u001F",
    "\u2044", // fraction slash
    "\u2215", // division slash
    "\uFF0F", // fullwidth solidus
    "\uFF3C", // fullwidth reverse solidus
    "evil.example",
    "x",
    "@",
    ":",
    "?",
    "#",
  ];
  const piece = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...slashesAndDots) },
    { weight: 1, arbitrary: fc.constantFrom(...others) },
  );
  const pathLike = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(""));
  const prefixes = fc.constantFrom("", "/", "http:", "https:", origin, "//", "javascript:", "http://evil.example");
  const anyInput = fc.oneof(
    { weight: 3, arbitrary: fc.tuple(prefixes, pathLike).map(([p, a]) => `${p}${a}`) },
    { weight: 1, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
    { weight: 1, arbitrary: fc.webPath().map((p) => `${origin}${p}`) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
    { weight: 1, arbitrary: fc.stringMatching(/^[/\\.%2efc5\t]{0,10}[a-z.]{0,8}$/) },
  );
  const staysOurs = (input: string) => {
    const path = safeReturnPath(input, origin);
    expect(new URL(path, origin).origin).toBe(origin);
    // The absolute form next-auth's redirect callback builds stays ours too.
    expect(new URL(`${origin}${path}`).origin).toBe(origin);
  };

  // Without the collapsing of leading slashes this finds `.//` or `..//` from scratch (how soon:
  // bench-results.md › Figures the code rests on).
  it("resolves to our origin for any path made of slashes, dots and their encodings", () => {
    fc.assert(fc.property(pathLike, staysOurs), { numRuns: 4000 });
  });

  it("resolves to our origin whatever the input (the login page, next-auth and requireActor all use it)", () => {
    fc.assert(fc.property(anyInput, staysOurs), { numRuns: 3000 });
  });

  it("keeps a path of ours as it was", () => {
    const segment = fc.stringMatching(/^[a-z0-9_-]{1,12}$/);
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.option(segment), (segments, query) => {
        const path = `/${segments.join("/")}${query ? `?q=${query}` : ""}`;
        expect(sameOriginPath(path, origin)).toBe(path);
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ["/.//evil.example/x", "/evil.example/x"],
    ["/..//evil", "/evil"],
    ["/%2e//evil", "/evil"],
    ["http://localhost:3000//evil", "/evil"],
    [".//evil.example", "/evil.example"],
  ])("the issue's %s stays on our origin as %s", (url, expected) => {
    expect(sameOriginPath(url, origin)).toBe(expected);
  });
});
