import { type NextRequest, NextResponse } from "next/server";
import { MAX_SCREEN_BODY_BYTES } from "@/lib/api/parse";
import { isScreen } from "@/lib/api/screens";
import { newTraceId } from "@/lib/telemetry/tracing";

/**
 * Runs before Next.js routes a request, on the screens and on any path with a `%` in it:
 *
 * - A path whose percent-encoding is broken (`/locations/%E0%A4%A`) is answered 400 with SPEC.md's
 *   error body; Next.js's router would answer it with an empty 500.
 * - A form POST to a screen whose body cannot be read as a form is answered 400 the same way;
 *   Next.js would try it as a server action and answer 500. A body over 1 MB is refused without
 *   parsing it (scripts/serve.mjs's edge refuses one declared that large before reading it).
 * - The install screen (GET /oauth/chooselocation) with a bad client_id or redirect_uri: the page
 *   shows its error screen (never a redirect, RFC 6749 §4.1.2.1), answered 400. A page cannot set
 *   its own status, so the check is made here and the page is rendered with that status.
 * - Screens: tells server components which path (with query) was asked for, so a signed-out
 *   person is sent to sign in and back to exactly that page, and gives the response a trace id.
 *   API routes set their own trace id (apiRoute), equal to their error body's.
 */
export async function proxy(request: NextRequest) {
  const { pathname } = request.nextUrl;
  if (!decodes(pathname)) {
    return refusal("The path has a broken percent-encoding (a % not followed by two hex digits of valid UTF-8).");
  }
  if (!isScreen(pathname)) return NextResponse.next();
  if (request.method === "POST" && isFormPost(request)) {
    const form = await readsAsForm(request);
    if (form === "too large") return refusal("The request body is larger than 1 MB.");
    if (form === "unreadable") {
      return refusal("The form body could not be read: send the form from the page, as multipart or URL-encoded data.");
    }
  }
  const headers = new Headers(request.headers);
  headers.set("x-pathname", `${pathname}${request.nextUrl.search}`);
  const status = request.method === "GET" && isInstallScreen(pathname) ? await installScreenStatus(request) : 200;
  const response =
    status === 200
      ? NextResponse.next({ request: { headers } })
      : NextResponse.rewrite(request.nextUrl, { request: { headers }, status });
  // SPEC.md: every response carries a trace id (the request's trace's, with tracing on).
  response.headers.set("x-trace-id", newTraceId());
  return response;
}

function isInstallScreen(pathname: string): boolean {
  return pathname === "/oauth/chooselocation" || pathname === "/oauth/chooselocation/";
}

/** 400 when the install link's client_id or redirect_uri is bad (the page shows why), else 200. */
async function installScreenStatus(request: NextRequest): Promise<number> {
  // Imported here: the database client is needed by this one screen only.
  const [{ authorizeParamsFrom }, { validateAuthorizeRequest }] = await Promise.all([
    import("@/lib/oauth/authorize/params"),
    import("@/lib/oauth/authorize/validate"),
  ]);
  const check = await validateAuthorizeRequest(authorizeParamsFrom(request.nextUrl.searchParams));
  return !check.ok && check.kind === "screen" ? check.status : 200;
}

function decodes(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

function isFormPost(request: NextRequest): boolean {
  const type = request.headers.get("content-type")?.toLowerCase() ?? "";
  return type.startsWith("multipart/form-data") || type.startsWith("application/x-www-form-urlencoded");
}

/** Whether the body parses as the form its Content-Type names, reading at most 1 MB of it. */
async function readsAsForm(request: NextRequest): Promise<"form" | "too large" | "unreadable"> {
  if (Number(request.headers.get("content-length")) > MAX_SCREEN_BODY_BYTES) return "too large";
  try {
    const chunks: Uint8Array<ArrayBuffer>[] = [];
    let size = 0;
    const reader = request.clone().body?.getReader();
    for (;;) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) break;
      size += chunk.value.byteLength;
      if (size > MAX_SCREEN_BODY_BYTES) {
        // Not awaited: cancelling one branch of the clone's tee settles only once both are cancelled.
        reader?.cancel().catch(() => {});
        return "too large";
      }
      chunks.push(new Uint8Array(chunk.value));
    }
    const headers = { "content-type": request.headers.get("content-type") ?? "" };
    await new Response(new Blob(chunks), { headers }).formData();
    return "form";
  } catch {
    return "unreadable";
  }
}

function refusal(description: string): NextResponse {
  const traceId = newTraceId();
  return NextResponse.json(
    { error: "invalid_request", error_description: description, statusCode: 400, traceId },
    { status: 400, headers: { "x-trace-id": traceId, "cache-control": "no-store" } },
  );
}

export const config = {
  // The screens of lib/api/screens.ts (Next.js reads the matcher as a literal, so it cannot be built from that).
  matcher: [
    "/",
    "/login",
    "/settings/:path*",
    "/location/:path*",
    "/marketplace/:path*",
    "/developer/:path*",
    "/oauth/chooselocation/:path*",
    "/docs",
    // Any path with a percent sign, so a broken encoding is refused before Next.js routes it.
    "/(.*%.*)",
  ],
};
