import { apiRoute, json, otherMethods } from "@/lib/api/handler";

/** Liveness, and the benchmark's ceiling: no database, no auth. */
export const GET = apiRoute(async () => json({ status: "ok" }));
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
