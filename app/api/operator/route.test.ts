import { afterEach, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { operatorKey } from "@/lib/cli/operator";
import { resetEnvCache } from "@/lib/env";
import { apiClient } from "@/lib/testing/api-client";

const api = apiClient(apiRoutes);

// The peer address is set here as scripts/serve.mjs sets it from the socket (a client's copy is dropped there).
const callOperatorFrom = (peer: string, forwardedFor?: string) =>
  api.post("/api/operator", {
    token: operatorKey(),
    json: { command: "no-such-command", flags: {} },
    peer,
    forwardedFor,
  });

describe("POST /api/operator", () => {
  afterEach(() => {
    delete process.env.TRUSTED_PROXY_HOPS;
    resetEnvCache();
  });

  it("refuses a caller on another machine, whatever X-Forwarded-For claims", async () => {
    for (const forwardedFor of ["127.0.0.1", "::1", "127.0.0.1, 127.0.0.1"]) {
      const refused = await callOperatorFrom("192.0.2.2", forwardedFor);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toBe("forbidden");
    }
  });

  it("answers the CLI on this machine (here: the command is unknown)", async () => {
    const answered = await callOperatorFrom("::ffff:127.0.0.1");
    expect(answered.status).toBe(400);
    expect(answered.body.error).toBe("invalid_request");
  });

  it("does not believe a caller on this machine that claims to be elsewhere", async () => {
    const answered = await callOperatorFrom("127.0.0.1", "203.0.113.7");
    expect(answered.status).toBe(400);
  });

  it("behind one trusted proxy, believes the proxy's entry and only it", async () => {
    process.env.TRUSTED_PROXY_HOPS = "1";
    resetEnvCache();
    const remote = await callOperatorFrom("127.0.0.1", "203.0.113.7");
    expect(remote.status).toBe(403);
    const forgedLeft = await callOperatorFrom("127.0.0.1", "127.0.0.1, 203.0.113.7");
    expect(forgedLeft.status).toBe(403);
    // A proxy on another machine that says its client is on this one: the proxy's word counts.
    const local = await callOperatorFrom("192.0.2.2", "127.0.0.1");
    expect(local.status).toBe(400);
  });
});
