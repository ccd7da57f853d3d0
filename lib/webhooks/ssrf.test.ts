import type { LookupAddress } from "node:dns";
import http from "node:http";
import { describe, expect, it } from "vitest";
import type { WebhookReceiver } from "@/lib/testing/webhook-receiver";
import { withWebhookReceiver } from "@/lib/testing/webhook-receiver-hooks";
import {
  assertWebhookTargetAllowed,
  guardedLookup,
  isForbiddenAddress,
  parseWebhookTarget,
  WebhookTargetRefused,
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
