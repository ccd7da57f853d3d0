// The bench's ceiling: the least a Next.js 16 route handler can do, in an app of its own.
export const dynamic = "force-dynamic";

export function GET() {
  return Response.json({ ok: true });
}
