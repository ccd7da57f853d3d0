import { promises as dnsPromises, type LookupAddress } from "node:dns";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Actor } from "@/lib/accounts/permissions";
import { runCommand } from "@/lib/cli/run";
import { db } from "@/lib/db/client";
import { resetEnvCache } from "@/lib/env";
import { signedInAs } from "@/lib/testing/actor";
import { makeAgency, type TestAgency, uniqueSuffix } from "@/lib/testing/fixtures";
import { refusal } from "@/lib/testing/refusal";
import { createApp, updateApp } from "./registry";

/**
 * SPEC.md: a webhook URL on a loopback or private network is refused when it is saved (a message
 * beside the field), not only at delivery, unless WEBHOOK_ALLOW_PRIVATE=1: through createApp and
 * updateApp, the developer form's action and the CLI. The system's DNS is a stand-in.
 */

// The server action runs outside Next.js here: the session and the cache are stand-ins.
const session = vi.hoisted(() => ({ actor: null as Actor | null }));
vi.mock("@/lib/auth/session", () => ({
  getActor: async () => session.actor,
  getSignedIn: async () => (session.actor ? signedInAs(session.actor) : null),
}));
vi.mock("next/cache", () => ({ revalidatePath: vi.fn() }));
const { createAppAction, updateAppAction } = await import("@/app/(admin)/developer/apps/actions");

const dnsAnswers: Record<string, string[]> = {
  "hooks.public.example": ["93.184.215.14", "2606:4700:4700::1111"],
  "hooks.mixed.example": ["93.184.215.14", "10.0.0.5"],
  "metadata.rebind.example": ["169.254.169.254"],
  "v6.internal.example": ["fd00::1"],
};
const lookup = vi.fn(async (host: string): Promise<LookupAddress[]> => {
  const answer = dnsAnswers[host];
  if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return answer.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
});

function setAllowPrivate(value: "0" | "1") {
  process.env.WEBHOOK_ALLOW_PRIVATE = value;
  resetEnvCache();
}

let agency: TestAgency;
beforeAll(async () => {
  agency = await makeAgency({ locations: 0 });
});
beforeEach(() => {
  setAllowPrivate("0");
  lookup.mockClear();
  vi.spyOn(dnsPromises, "lookup").mockImplementation(lookup as unknown as typeof dnsPromises.lookup);
  session.actor = null;
});
afterEach(() => {
  vi.restoreAllMocks();
  setAllowPrivate("1");
});

const appInput = (webhookUrl: string | null, name = `Hooked ${uniqueSuffix()}`) => ({
  companyId: agency.company.id,
  name,
  redirectUris: ["https://app.example.com/cb"],
  scopes: ["contacts.readonly"],
  installSetting: "everyone" as const,
  webhookUrl,
});

const refusedLiteral = (host: string, what: string) =>
  `Webhook URL: ${host} is ${what} address; webhooks go only to public addresses.`;

describe("saving an app refuses a webhook URL on a loopback or private address", () => {
  it.each([
    ["http://127.0.0.1:3000/hook", refusedLiteral("127.0.0.1", "a loopback")],
    ["http://2130706433/hook", refusedLiteral("127.0.0.1", "a loopback")], // one decimal number
    ["http://0x7f.1/hook", refusedLiteral("127.0.0.1", "a loopback")], // hex, short form
    ["http://0177.0.0.1/hook", refusedLiteral("127.0.0.1", "a loopback")], // octal
    ["http://10.1.2.3/hook", refusedLiteral("10.1.2.3", "a private")],
    ["http://172.16.0.1/hook", refusedLiteral("172.16.0.1", "a private")],
    ["http://192.168.1.1/hook", refusedLiteral("192.168.1.1", "a private")],
    ["http://169.254.169.254/latest/meta-data", refusedLiteral("169.254.169.254", "a link-local")],
    ["http://0.0.0.0/hook", refusedLiteral("0.0.0.0", "an unspecified")],
    ["http://[::1]:8080/hook", refusedLiteral("::1", "a loopback")],
    ["http://[::]/hook", refusedLiteral("::", "an unspecified")],
    ["https://[fd00::1]/hook", refusedLiteral("fd00::1", "a unique local")],
    ["https://[fe80::1]/hook", refusedLiteral("fe80::1", "a link-local")],
    ["http://[::ffff:127.0.0.1]/hook", refusedLiteral("::ffff:7f00:1", "an IPv4-mapped")],
    ["http://localhost:3000/hook", refusedLiteral("localhost", "a loopback")],
    ["http://LOCALHOST./hook", refusedLiteral("localhost.", "a loopback")],
    ["https://api.localhost/hook", refusedLiteral("api.localhost", "a loopback")],
  ])("createApp refuses %s beside the field, and saves nothing", async (webhookUrl, message) => {
    const name = `Refused ${uniqueSuffix()}`;
    const error = await refusal(createApp(appInput(webhookUrl, name)));
    expect(error).toMatchObject({ kind: "invalid", field: "webhookUrl", message });
    expect(await db().app.count({ where: { name } })).toBe(0);
    expect(lookup).not.toHaveBeenCalled(); // an IP literal or localhost is judged as it is
  });

  it("resolves a host name (every address) and refuses it if any address is not public, without naming it", async () => {
    for (const host of ["hooks.mixed.example", "metadata.rebind.example", "v6.internal.example"]) {
      const error = await refusal(createApp(appInput(`https://${host}/hook`)));
      expect(error.field).toBe("webhookUrl");
      expect(error.message).toBe(
        `Webhook URL: ${host} resolves to a loopback, private or other non-public address; webhooks go only to public addresses.`,
      );
      expect(error.message).not.toMatch(/10\.0\.0\.5|169\.254|fd00/);
      expect(lookup).toHaveBeenLastCalledWith(host, expect.objectContaining({ all: true }));
    }
  });

  it("refuses a host name that cannot be resolved, saying so", async () => {
    const error = await refusal(createApp(appInput("https://hooks.nowhere.example/hook")));
    expect(error).toMatchObject({
      field: "webhookUrl",
      message: expect.stringMatching(/^Webhook URL: hooks\.nowhere\.example could not be resolved\b/),
    });
  });

  it("saves a host name whose addresses are all public, and no webhook URL at all", async () => {
    const { app } = await createApp(appInput("https://hooks.public.example/in"));
    expect(app.webhookUrl).toBe("https://hooks.public.example/in");
    expect((await createApp(appInput(null))).app.webhookUrl).toBeNull();
  });

  it("updateApp refuses it too, and the stored URL stays", async () => {
    const { app } = await createApp(appInput("https://hooks.public.example/in"));
    const error = await refusal(updateApp(app.id, { webhookUrl: "http://2130706433/" }));
    expect(error).toMatchObject({ field: "webhookUrl", message: refusedLiteral("127.0.0.1", "a loopback") });
    const row = await db().app.findUniqueOrThrow({ where: { id: app.id } });
    expect(row.webhookUrl).toBe("https://hooks.public.example/in");
    // Other settings are saved without a webhook URL to check.
    expect((await updateApp(app.id, { name: "Renamed" })).name).toBe("Renamed");
  });

  it("the developer form shows the message beside Webhook URL, keeping what was typed", async () => {
    session.actor = agency.owner;
    const fields = {
      name: "Form app",
      redirectUris: "https://app.example.com/cb",
      "scopes[]": "contacts.readonly",
      installSetting: "everyone",
      webhookUrl: "http://[::1]/hook",
    };
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    const created = await createAppAction({}, form);
    expect(created.ok).toBeUndefined();
    expect(created.fieldErrors).toEqual({ webhookUrl: refusedLiteral("::1", "a loopback") });
    expect(created.values?.webhookUrl).toBe("http://[::1]/hook");

    const { app } = await createApp(appInput(null));
    form.append("appId", app.id);
    const updated = await updateAppAction({}, form);
    expect(updated.fieldErrors).toEqual({ webhookUrl: refusedLiteral("::1", "a loopback") });
  });

  it("the CLI's app:create refuses it with the message (scripts/cli.ts prints it and exits 1)", async () => {
    const flags = {
      company: agency.company.id,
      name: `Cli ${uniqueSuffix()}`,
      "redirect-uri": "https://app.example.com/cb",
      scopes: "contacts.readonly",
      "install-setting": "everyone",
    };
    await expect(runCommand("app:create", { ...flags, "webhook-url": "http://127.0.0.1:9/hook" })).rejects.toThrow(
      refusedLiteral("127.0.0.1", "a loopback"),
    );
    await expect(runCommand("app:create", { ...flags, "webhook-url": "http://[fd00::1]/" })).rejects.toThrow(
      refusedLiteral("fd00::1", "a unique local"),
    );
    expect(await db().app.count({ where: { name: flags.name } })).toBe(0);
  });
});

describe("WEBHOOK_ALLOW_PRIVATE=1", () => {
  it("accepts loopback, private and unresolvable targets when saved, without resolving anything", async () => {
    setAllowPrivate("1");
    for (const url of [
      "http://127.0.0.1:3000/hook",
      "http://2130706433/",
      "http://[::1]/hook",
      "http://[fd00::1]/hook",
      "http://[::ffff:127.0.0.1]/",
      "http://localhost:4000/hook",
      "https://hooks.mixed.example/hook",
      "https://hooks.nowhere.example/hook",
    ]) {
      expect((await createApp(appInput(url))).app.webhookUrl).toBe(url);
    }
    const out = await runCommand("app:create", {
      company: agency.company.id,
      name: `Cli ${uniqueSuffix()}`,
      "redirect-uri": "https://app.example.com/cb",
      scopes: "contacts.readonly",
      "install-setting": "everyone",
      "webhook-url": "http://127.0.0.1:9/hook",
    });
    expect(out.appId).toEqual(expect.any(String));
    expect(lookup).not.toHaveBeenCalled();
  });
});
