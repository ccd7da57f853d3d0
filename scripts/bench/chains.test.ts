import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChainClient, runChains } from "./chains";

/** A token endpoint that rotates: each token is answered once with its successor ("t" → "t.1"); a token used twice, or "refuse…", gets 400. */
let server: Server;
let url: string;
const used = new Set<string>();
const forms: URLSearchParams[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      const form = new URLSearchParams(body);
      forms.push(form);
      const token = form.get("refresh_token") ?? "";
      const refused = used.has(token) || token.startsWith("refuse");
      used.add(token);
      const answer = refused ? { error: "invalid_grant" } : { access_token: "a", refresh_token: `${token}.1` };
      response.writeHead(refused ? 400 : 200, { "content-type": "application/json" });
      response.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

describe("the bench's chained refresh client (scripts/bench/chains.ts)", () => {
  it.each<ChainClient>(["fetch", "http"])(
    "with %s: each chain sends the refresh token of its last answer, until the turn ends",
    async (client) => {
      const first = [`${client}-a`, `${client}-b`, `${client}-c`];
      const result = await runChains({
        url,
        clientId: "app",
        clientSecret: "secret",
        tokens: first,
        seconds: 0.3,
        client,
      });
      expect(result.non2xx + result.errors).toBe(0);
      expect(result.total).toBeGreaterThan(first.length);
      expect(result.seconds).toBeGreaterThanOrEqual(0.3);
      expect(result.p99).toBeGreaterThanOrEqual(result.p50);
      expect(result.cpuUs).toBeGreaterThan(0);
      // Each chain's live token is its first followed by one ".1" per answer: the answers add up.
      const answers = result.tokens.map((token, i) => ((token ?? "").length - (first[i] as string).length) / 2);
      expect(answers.reduce((sum, n) => sum + n, 0)).toBe(result.total);
      const sent = forms.filter((form) => form.get("refresh_token")?.startsWith(client));
      expect(sent.every((form) => form.get("grant_type") === "refresh_token" && form.get("client_id") === "app")).toBe(
        true,
      );
    },
  );

  it("a refusal breaks its chain (its token null, the answer shown), and the others carry on", async () => {
    const result = await runChains({
      url,
      clientId: "app",
      clientSecret: "secret",
      tokens: ["refuse-me", "carry-on"],
      seconds: 0.2,
      client: "http",
    });
    expect(result.non2xx).toBe(1);
    expect(result.tokens[0]).toBeNull();
    expect(result.tokens[1]).toMatch(/^carry-on(\.1)+$/);
    expect(result.firstRefusal).toBe('400: {"error":"invalid_grant"}');
  });
});
