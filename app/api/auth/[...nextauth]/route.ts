import { randomUUID } from "node:crypto";
import NextAuth from "next-auth";
import { errorResponse } from "@/lib/api/handler";
import { HttpError } from "@/lib/api/http-error";
import { authOptions } from "@/lib/auth/options";

/**
 * next-auth's endpoints (sign-in, session, CSRF), held to SPEC.md's conventions: every answer has
 * an x-trace-id, an error is SPEC.md's JSON body (next-auth answers some in plain text), and a body
 * it cannot parse is a 400, not the 500 next-auth's exception would become.
 */
async function handler(request: Request, context: { params: Promise<{ nextauth: string[] }> }) {
  const traceId = randomUUID();
  let response: Response;
  try {
    response = await NextAuth(request as never, { params: await context.params } as never, authOptions());
    if (response.status >= 400 && !response.headers.get("content-type")?.includes("json")) {
      response = errorResponse(await asHttpError(response), traceId, request);
    }
  } catch (error) {
    response = errorResponse(
      error instanceof SyntaxError || error instanceof TypeError
        ? new HttpError("invalid_request", "The request body could not be read. Sign in from /login.")
        : error,
      traceId,
      request,
    );
  }
  // next-auth's redirects have immutable headers: answer with a copy.
  const answer = new Response(response.body, response);
  answer.headers.set("x-trace-id", traceId);
  return answer;
}

async function asHttpError(response: Response): Promise<HttpError> {
  const text = (await response.text())
    .replace(/^Error:\s*/, "")
    .split("\n")[0]
    ?.slice(0, 300);
  if (response.status === 404) return new HttpError("not_found", text || "Not found.");
  if (response.status >= 500) return new HttpError("server_error", "Something went wrong on our side. Try again.");
  return new HttpError("invalid_request", text || "The request is not valid for this endpoint.");
}

export { handler as GET, handler as POST };
