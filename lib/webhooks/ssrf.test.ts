// Over 250 lines on purpose: one rule (which addresses are not public) proven for delivery and for
// saving alike, each range in every spelling URL parsing accepts, beside the host-name cases.
import type { LookupAddress } from "node:dns";
import http from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { WebhookReceiver } from "@/lib/testing/webhook-receiver";
import { withWebhookReceiver } from "@/lib/testing/webhook-receiver-hooks";
import {
  assertWebhookTargetAllowed,
  guardedLookup,
  isForbiddenAddress,
  parseWebhookTarget,
  WebhookTargetRefused,
  webhookUrlSaveProblem,
} from "./ssrf";

describe("isForbiddenAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.255", "carrier-grade NAT"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["198.18.0.1", "benchmarking"],
    ["192.0.2.10", "documentation"],
    ["::", "IPv6 unspecified"],
    ["::1", "IPv6 loopback"],
    ["[::1]", "IPv6 loopback in brackets"],
    ["fc00::1", "IPv6 unique local"],
    ["fd12:3456:789a::1", "IPv6 unique local"],
    ["fe80::1", "IPv6 link-local"],
    ["fe80::1%eth0", "IPv6 link-local with zone"],
    ["ff02::1", "IPv6 multicast"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:8.8.8.8", "IPv4-mapped (refused outright)"],
    ["::ffff:7f00:1", "IPv4-mapped loopback, hex"],
    ["::127.0.0.1", "IPv4-compatible"],
    ["::ffff:0:127.0.0.1", "IPv4-translated loopback"],
    ["::ffff:0:a9fe:a9fe", "IPv4-translated cloud metadata, hex"],
    ["::ffff:0:8.8.8.8", "IPv4-translated (refused outright)"],
    ["64:ff9b::10.0.0.1", "NAT64 of a private address"],
    ["64:ff9b::a00:1", "NAT64 of a private address, hex"],
    ["2002:7f00:1::", "6to4"],
    ["2001:db8::1", "documentation"],
    ["not-an-ip", "not an address"],
  ])("refuses %s (%s)", (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    ["8.8.8.8"],
    ["1.1.1.1"],
    ["93.184.215.14"],
    ["172.32.0.1"],
    ["100.128.0.1"],
    ["2606:4700:4700::1111"],
    ["2a00:1450:4001:80b::200e"],
    ["64:ff9b::808:808"],
  ])("allows public %s", (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});

describe("parseWebhookTarget", () => {
  it.each([
    ["ftp://example.com/hook", /http/],
    ["file:///etc/passwd", /http/],
    ["javascript:alert(1)", /http/],
    ["not a url", /valid/],
    ["http://127.0.0.1:3000/hook", /non-public/],
    ["http://2130706433/hook", /non-public/], // 127.0.0.1 as one number
    ["http://0x7f.1/hook", /non-public/],
    ["http://[::1]/hook", /non-public/],
    ["http://[::ffff:169.254.169.254]/", /non-public/],
    ["http://[::ffff:0:169.254.169.254]/", /non-public/],
    ["http://localhost:3000/hook", /localhost/],
    ["http://api.localhost/hook", /localhost/],
  ])("refuses %s", (url, message) => {
    expect(() => parseWebhookTarget(url, { allowPrivate: false })).toThrow(message);
  });

  it("allows a public https URL, and private ones when WEBHOOK_ALLOW_PRIVATE is on", () => {
    expect(parseWebhookTarget("https://hooks.example.com/x", { allowPrivate: false }).hostname).toBe(
      "hooks.example.com",
    );
    expect(parseWebhookTarget("http://127.0.0.1:3000/hook", { allowPrivate: true }).port).toBe("3000");
    expect(() => parseWebhookTarget("ftp://127.0.0.1/", { allowPrivate: true })).toThrow(WebhookTargetRefused);
  });
});

describe("assertWebhookTargetAllowed resolves the host and checks every address", () => {
  const resolver = (answers: Record<string, string[]>) => async (host: string) =>
    (answers[host] ?? []).map((address): LookupAddress => ({ address, family: address.includes(":") ? 6 : 4 }));
  const dns = resolver({
    "public.example": ["93.184.215.14", "2606:4700:4700::1111"],
    "mixed.example": ["93.184.215.14", "10.0.0.5"],
    "rebind.example": ["169.254.169.254"],
    "v6private.example": ["fd00::1"],
  });

  it("allows a host whose addresses are all public", async () => {
    await expect(
      assertWebhookTargetAllowed("https://public.example/hook", { allowPrivate: false, resolver: dns }),
    ).resolves.toBeInstanceOf(URL);
  });

  it.each(["mixed.example", "rebind.example", "v6private.example", "nothing.example"])("refuses %s", async (host) => {
    await expect(
      assertWebhookTargetAllowed(`https://${host}/hook`, { allowPrivate: false, resolver: dns }),
    ).rejects.toThrow(WebhookTargetRefused);
  });

  it("says only that the target is not allowed, not what the name resolves to (no internal DNS oracle)", async () => {
    for (const host of ["mixed.example", "rebind.example", "v6private.example"]) {
      const refusal = await assertWebhookTargetAllowed(`https://${host}/hook`, {
        allowPrivate: false,
        resolver: dns,
      }).then(
        () => undefined,
        (error: Error) => error.message,
      );
      expect(refusal).toMatch(/^The webhook target is not allowed\b/);
      expect(refusal).not.toMatch(/loopback|private|public|resolves|address/i);
    }
  });

  it("allows private addresses when WEBHOOK_ALLOW_PRIVATE is on", async () => {
    await expect(
      assertWebhookTargetAllowed("https://mixed.example/hook", { allowPrivate: true, resolver: dns }),
    ).resolves.toBeInstanceOf(URL);
  });
});

describe("guardedLookup pins the connection to the addresses it checked", () => {
  const get = (url: string, lookup: ReturnType<typeof guardedLookup>) =>
    new Promise<number>((resolve, reject) => {
      const request = http.request(url, { method: "POST", agent: false, lookup }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on("error", reject);
      request.end();
    });
  let receiver: WebhookReceiver;
  withWebhookReceiver((started) => {
    receiver = started;
  });

  it("refuses a name that resolves to loopback, before connecting", async () => {
    const resolver = async () => [{ address: "127.0.0.1", family: 4 }];
    await expect(
      get(`http://hooks.example.test:${receiver.port}/hooks`, guardedLookup({ allowPrivate: false, resolver })),
    ).rejects.toThrow(WebhookTargetRefused);
    expect(receiver.received).toHaveLength(0);
  });

  it("connects to exactly the address it resolved (no second DNS query to rebind)", async () => {
    let queries = 0;
    const resolver = async () => {
      queries += 1;
      return [{ address: "127.0.0.1", family: 4 }];
    };
    expect(
      await get(`http://hooks.example.test:${receiver.port}/hooks`, guardedLookup({ allowPrivate: true, resolver })),
    ).toBe(200);
    expect(queries).toBe(1);
    expect(receiver.received).toHaveLength(1);
  });
});

describe("webhookUrlSaveProblem: the check when a developer saves a webhook URL", () => {
  const never = async (): Promise<LookupAddress[]> => {
    throw new Error("an IP literal is never resolved");
  };
  const onSave = (url: string, options: Parameters<typeof webhookUrlSaveProblem>[1] = {}) =>
    webhookUrlSaveProblem(url, { allowPrivate: false, resolver: never, ...options });
  const refusal = (host: string, what: string) =>
    `Webhook URL: ${host} is ${what} address; webhooks go only to public addresses.`;

  // Any spelling of an IPv4 address the URL parser accepts: 1 to 4 parts (the last one holds the
  // remaining bits), each decimal, octal (0…) or hex (0x…, either case, zeros in front), and a
  // trailing dot or not. The parser turns every one into the dotted quad.
  const spelledPart = (value: number) =>
    fc.oneof(
      fc.constant(String(value)),
      fc.nat({ max: 2 }).map((zeros) => `${"0".repeat(zeros + 1)}${value.toString(8)}`),
      fc
        .tuple(fc.constantFrom("0x", "0X"), fc.nat({ max: 2 }), fc.boolean())
        .map(
          ([x, zeros, upper]) =>
            `${x}${"0".repeat(zeros)}${upper ? value.toString(16).toUpperCase() : value.toString(16)}`,
        ),
    );
  const spelledIpv4 = (n: number) =>
    fc.integer({ min: 1, max: 4 }).chain((parts) => {
      const bytes = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
      const last = parts === 1 ? n : Number(BigInt(n) & ((1n << BigInt(8 * (5 - parts))) - 1n));
      const values = [...bytes.slice(0, parts - 1), last];
      return fc
        .tuple(fc.tuple(...values.map(spelledPart)), fc.boolean())
        .map(([spelled, dot]) => `${spelled.join(".")}${dot ? "." : ""}`);
    });
  const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
  const inRange = (base: string, prefix: number) => {
    const start = base.split(".").reduce((acc, part) => acc * 256 + Number(part), 0);
    return fc.integer({ min: start, max: start + 2 ** (32 - prefix) - 1 });
  };
  const v4Ranges = [
    ["127.0.0.0", 8, "a loopback"],
    ["10.0.0.0", 8, "a private"],
    ["172.16.0.0", 12, "a private"],
    ["192.168.0.0", 16, "a private"],
    ["169.254.0.0", 16, "a link-local"],
    ["0.0.0.0", 8, "an unspecified"],
  ] as const;
  const privateV4 = fc.oneof(
    ...v4Ranges.map(([base, prefix, what]) => inRange(base, prefix).map((n) => ({ n, what }))),
  );

  it("refuses every IPv4 address in 127/8, 10/8, 172.16/12, 192.168/16, 169.254/16 and 0/8, in any spelling", async () => {
    await fc.assert(
      fc.asyncProperty(
        privateV4.chain(({ n, what }) => spelledIpv4(n).map((host) => ({ n, what, host }))),
        fc.constantFrom("http", "https"),
        async ({ n, what, host }, scheme) => {
          const url = `${scheme}://${host}/hook`;
          expect(new URL(url).hostname).toBe(dotted(n));
          expect(await onSave(url)).toBe(refusal(dotted(n), what));
          // The IPv4-mapped IPv6 form of it too.
          expect(await onSave(`${scheme}://[::ffff:${dotted(n)}]/hook`)).toMatch(/ is an IPv4-mapped address; /);
        },
      ),
      { numRuns: 2000 },
    );
  });

  // Any spelling of an IPv6 address the URL parser accepts: groups padded with zeros or not, in
  // either case, one run of zero groups written as :: (or none), the last 32 bits dotted or not.
  const spelledIpv6 = (groups: readonly number[]) => {
    const zeroRuns: [number, number][] = [];
    for (let i = 0; i < 8; i++) {
      for (let j = i; j < 8 && groups[j] === 0; j++) zeroRuns.push([i, j + 1]);
    }
    return fc
      .tuple(
        fc.array(fc.tuple(fc.nat({ max: 3 }), fc.boolean()), { minLength: 8, maxLength: 8 }),
        zeroRuns.length ? fc.option(fc.constantFrom(...zeroRuns)) : fc.constant(null),
        fc.boolean(),
      )
      .map(([looks, run, dottedTail]) => {
        const hex = groups.map((g, i) => {
          const [pad, upper] = looks[i]!;
          const text = g.toString(16).padStart(Math.min(4, g.toString(16).length + pad), "0");
          return upper ? text.toUpperCase() : text;
        });
        const pieces: string[] = dottedTail
          ? [...hex.slice(0, 6), `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`]
          : hex;
        if (!run) return pieces.join(":");
        // Columns [from, to) become ::, counted in groups (the dotted tail is two).
        const at = (column: number) => (dottedTail && column >= 6 ? 6 + (column >= 8 ? 1 : 0) : column);
        const [from, to] = run;
        if (dottedTail && from < 8 && to > 6 && (from > 6 || to < 8)) return pieces.join(":");
        return `${pieces.slice(0, at(from)).join(":")}::${pieces.slice(at(to)).join(":")}`;
      });
  };
  const group = (min: number, max: number) => fc.integer({ min, max });
  const privateV6 = fc.oneof(
    fc.constant({ groups: [0, 0, 0, 0, 0, 0, 0, 1], what: "a loopback" }),
    fc
      .tuple(group(0xfc00, 0xfdff), fc.array(group(0, 0xffff), { minLength: 7, maxLength: 7 }))
      .map(([first, rest]) => ({ groups: [first, ...rest], what: "a unique local" })),
    fc
      .tuple(
        group(0xfe80, 0xfebf),
        fc.array(fc.oneof(fc.constant(0), group(0, 0xffff)), { minLength: 7, maxLength: 7 }),
      )
      .map(([first, rest]) => ({ groups: [first, ...rest], what: "a link-local" })),
  );

  it("refuses every IPv6 address in ::1, fc00::/7 and fe80::/10, in any spelling", async () => {
    await fc.assert(
      fc.asyncProperty(
        privateV6.chain(({ groups, what }) => spelledIpv6(groups).map((host) => ({ groups, what, host }))),
        async ({ what, host }) => {
          const url = `https://[${host}]:8443/hook`;
          const normalised = new URL(url).hostname.replace(/^\[|\]$/g, "");
          expect(await onSave(url)).toBe(refusal(normalised, what));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("refuses an IP literal exactly when delivery does (one rule for both), and with WEBHOOK_ALLOW_PRIVATE=1 never", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 2 ** 32 - 1 }).chain((n) => spelledIpv4(n)),
        async (host) => {
          const url = `http://${host}/hook`;
          const deliveryRefuses = (() => {
            try {
              parseWebhookTarget(url, { allowPrivate: false });
              return false;
            } catch {
              return true;
            }
          })();
          expect((await onSave(url)) !== undefined).toBe(deliveryRefuses);
          expect(await onSave(url, { allowPrivate: true })).toBeUndefined();
        },
      ),
      { numRuns: 2000 },
    );
    expect(await onSave("https://93.184.215.14/hook")).toBeUndefined();
    expect(await onSave("https://[2606:4700:4700::1111]/hook")).toBeUndefined();
  });

  describe("a host name", () => {
    const resolver = async (host: string): Promise<LookupAddress[]> => {
      const answers: Record<string, string[]> = {
        "public.example": ["93.184.215.14", "2606:4700:4700::1111"],
        "mixed.example": ["93.184.215.14", "10.0.0.5"],
        "empty.example": [],
      };
      const answer = answers[host];
      if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
      return answer.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    };

    it("is saved when every address it resolves to is public", async () => {
      expect(await onSave("https://public.example/hook", { resolver })).toBeUndefined();
    });

    it("is refused when any address is not public, without saying which", async () => {
      const problem = await onSave("https://mixed.example/hook", { resolver });
      expect(problem).toMatch(
        /^Webhook URL: mixed\.example resolves to a loopback, private or other non-public address/,
      );
      expect(problem).not.toContain("10.0.0.5");
    });

    it.each(["nowhere.example", "empty.example"])("is refused when it cannot be resolved (%s)", async (host) => {
      expect(await onSave(`https://${host}/hook`, { resolver })).toBe(
        `Webhook URL: ${host} could not be resolved; check the host name, which must have a public address.`,
      );
    });

    it("is refused when the resolver does not answer in time", async () => {
      const silent = () => new Promise<LookupAddress[]>(() => {});
      expect(await onSave("https://slow.example/hook", { resolver: silent, timeoutMs: 20 })).toMatch(
        /could not be resolved/,
      );
    });

    it("localhost is refused without asking DNS", async () => {
      expect(await onSave("http://localhost:3000/hook")).toBe(refusal("localhost", "a loopback"));
      expect(await onSave("http://a.b.localhost/hook")).toBe(refusal("a.b.localhost", "a loopback"));
    });

    it("is not resolved at all with WEBHOOK_ALLOW_PRIVATE=1", async () => {
      expect(await onSave("https://mixed.example/hook", { allowPrivate: true })).toBeUndefined();
      expect(await onSave("http://localhost/hook", { allowPrivate: true })).toBeUndefined();
    });
  });
});
