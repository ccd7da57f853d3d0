import { describe, expect, it } from "vitest";
import { conflict, forbidden, invalid, notFound, type Refusal } from "@/lib/refusal";
import { apiRoute } from "./handler";

async function answer(error: Refusal) {
  const response = await apiRoute(async () => {
    throw error;
  })(new Request("http://x/t"));
  return { status: response.status, body: await response.json(), traceId: response.headers.get("x-trace-id") };
}

describe("a domain refusal on the HTTP API", () => {
  const cases: [string, Refusal, number, string][] = [
    ["invalid", invalid("Bad after.", "after"), 400, "invalid_request"],
    ["not_found", notFound("No such contact."), 404, "not_found"],
    ["forbidden", forbidden("Not your sub-account."), 403, "forbidden"],
    ["conflict", conflict("Already there.", "email"), 409, "conflict"],
  ];

  it.each(cases)("%s answers SPEC.md's status and body, without the form field", async (_kind, error, status, code) => {
    const { status: got, body, traceId } = await answer(error);
    expect(got).toBe(status);
    expect(body).toEqual({ error: code, error_description: error.message, statusCode: status, traceId });
  });

  it("puts a conflict's data in the body, before SPEC.md's fields", async () => {
    const { body, traceId } = await answer(
      conflict("Taken.", "email", { contactId: "c1", meta: { contactId: "c1", matchingField: "email" } }),
    );
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        contactId: "c1",
        meta: { contactId: "c1", matchingField: "email" },
        error: "conflict",
        error_description: "Taken.",
        statusCode: 409,
        traceId,
      }),
    );
  });
});
