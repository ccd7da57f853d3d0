import { describe, expect, it } from "vitest";
import { peerAddressHeader } from "@/lib/api/client-address";
import { operatorKey } from "@/lib/cli/operator";
import { callRoute } from "@/lib/oauth/testing";
import { POST } from "./route";

const call = (headers: Record<string, string>) =>
  callRoute(
    POST,
    new Request("http://localhost/api/operator", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${operatorKey()}`, ...headers },
      body: JSON.stringify({ command: "no-such-command", flags: {} }),
    }),
  );

describe("POST /api/operator", () => {
  it("refuses a caller on another machine, whatever X-Forwarded-For claims", async () => {
    const refused = await call({ [peerAddressHeader]: "192.0.2.2", "x-forwarded-for": "127.0.0.1" });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("forbidden");
  });

  it("answers the CLI on this machine (here: the command is unknown)", async () => {
    const answered = await call({ [peerAddressHeader]: "::ffff:127.0.0.1" });
    expect(answered.status).toBe(400);
    expect(answered.body.error).toBe("invalid_request");
  });
});
