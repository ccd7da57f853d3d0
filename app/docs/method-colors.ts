import type { HttpMethod } from "@/lib/api/openapi/operation";

/** The badge of each method on /docs: every method a route may serve has one (a Record of them all). */
export const methodColors: Record<HttpMethod, string> = {
  GET: "bg-sky-100 text-sky-900",
  POST: "bg-emerald-100 text-emerald-900",
  PUT: "bg-amber-100 text-amber-900",
  PATCH: "bg-violet-100 text-violet-900",
  DELETE: "bg-rose-100 text-rose-900",
};

/** The document spells methods in lower case (`get`); an unknown one is a defect, not grey. */
export function methodColor(method: string): string {
  const color = methodColors[method.toUpperCase() as HttpMethod];
  if (!color) throw new Error(`/docs has no colour for ${method}: add it to methodColors.`);
  return color;
}
