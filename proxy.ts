import { type NextRequest, NextResponse } from "next/server";

/**
 * Screens only: tells server components which path (with query) was asked for, so a signed-out
 * person is sent to sign in and back to exactly that page. API routes never pass through here.
 */
export function proxy(request: NextRequest) {
  const headers = new Headers(request.headers);
  headers.set("x-pathname", `${request.nextUrl.pathname}${request.nextUrl.search}`);
  const response = NextResponse.next({ request: { headers } });
  // SPEC.md: every response carries a trace id (API routes set their own in apiRoute).
  response.headers.set("x-trace-id", crypto.randomUUID());
  return response;
}

export const config = {
  matcher: [
    "/",
    "/settings/:path*",
    "/location/:path*",
    "/marketplace/:path*",
    "/developer/:path*",
    "/oauth/chooselocation/:path*",
    "/docs",
  ],
};
