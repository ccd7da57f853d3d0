import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST } from "@/app/oauth/token/route";
import { directRouter, route } from "@/lib/api/direct-router";
import { json } from "@/lib/api/handler";
import { readForm } from "@/lib/api/parse";
import { invalidGrant } from "./errors";
import { noStoreRoute } from "./http";

/**
 * An OAuth endpoint's answer, a token or a refusal, of any size, as the direct router writes it to a
 * client that accepts gzip: never compressed (a secret beside text the requester chose can be
 * guessed from compressed sizes), never cached.
 */
let server: Server;
let base: string;

beforeAll(async () => {
  const tokenRoute = noStoreRoute(POST.declaration as NonNullable<typeof POST.declaration>, async (request) => {
    const form = await readForm(request);
    const filler = "t".repeat(Number(form.size));
    if (form.refuse === "yes") throw invalidGrant(`Refused: ${filler}`);
    return json({ access_token: filler, token_type: "Bearer" });
  });
  const direct = directRouter([route("/oauth/token", { POST: tokenRoute })], "http://localhost:3000");
  server = createServer((request, response) => {
    if (!direct(request, response)) response.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
});

function postToken(form: string, acceptEncoding: string) {
  return new Promise<{ headers: Record<string, unknown>; body: Buffer }>((done, fail) => {
    const sent = httpRequest(
      `${base}/oauth/token`,
      {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "accept-encoding": acceptEncoding },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => done({ headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    sent.on("error", fail);
    sent.end(form);
  });
}

describe("the OAuth endpoints' answers", () => {
  it("are written uncompressed and no-store, whatever their size, outcome or the client's Accept-Encoding", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 6000 }),
        fc.boolean(),
        fc.constantFrom("gzip", "gzip, deflate, br", "br;q=1, gzip;q=0.5", "*", "identity"),
        async (size, refuse, acceptEncoding) => {
          const answer = await postToken(`size=${size}&refuse=${refuse ? "yes" : "no"}`, acceptEncoding);
          expect(answer.headers["content-encoding"]).toBeUndefined();
          expect(String(answer.headers["cache-control"])).toContain("no-store");
          const body = JSON.parse(answer.body.toString()) as Record<string, string>;
          if (refuse) expect(body.error).toBe("invalid_grant");
          else expect(body.access_token).toHaveLength(size);
        },
      ),
      { numRuns: 60 },
    );
  });
});
