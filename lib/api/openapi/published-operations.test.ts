import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { documentedRoutes } from "@/app/route-table";
import { resetEnvCache } from "@/lib/env";
import { buildOpenApiDocument } from "./document";

type Json = Record<string, unknown>;

/**
 * The operations already published: the document must keep reading as it did, byte for byte, when
 * the code around them moves (as when each operation moved beside its handler). The fixture is the
 * document as published (APP_URL https://tokens.example, default limits). A new endpoint adds a
 * path, which this ignores; changing an existing one changes bytes here, so the fixture is updated
 * knowingly or not at all.
 */
const fixture = readFileSync(join(__dirname, "published-operations.json"), "utf8");

/** `document` with only the fixture's paths and tags (in the document's own order), and their schemas. */
function projected(document: Json, before: Json): Json {
  const keep = <T>(entries: [string, T][], names: Set<string>) => entries.filter(([name]) => names.has(name));
  const paths = Object.entries(document.paths as Json).flatMap(([path, item]): [string, Json][] => {
    const methods = (before.paths as Record<string, Json>)[path];
    if (!methods) return [];
    return [[path, Object.fromEntries(keep(Object.entries(item as Json), new Set(Object.keys(methods))))]];
  });
  const beforeTags = new Set((before.tags as { name: string }[]).map((t) => t.name));
  const schemas = (document.components as { schemas: Json }).schemas;
  const beforeSchemas = new Set(Object.keys((before.components as { schemas: Json }).schemas));
  return {
    ...document,
    tags: (document.tags as { name: string }[]).filter((t) => beforeTags.has(t.name)),
    paths: Object.fromEntries(paths),
    components: {
      ...(document.components as Json),
      schemas: Object.fromEntries(keep(Object.entries(schemas), beforeSchemas)),
    },
  };
}

describe("the OpenAPI document keeps the operations already published", () => {
  afterEach(() => {
    delete process.env.APP_URL;
    resetEnvCache();
  });

  it("is byte for byte the document of before (projected onto its paths, tags and schemas)", () => {
    process.env.APP_URL = "https://tokens.example";
    delete process.env.RATE_LIMIT_BURST;
    delete process.env.RATE_LIMIT_DAILY;
    resetEnvCache();
    const document = buildOpenApiDocument(documentedRoutes);
    const now = `${JSON.stringify(projected(document, JSON.parse(fixture)), null, 2)}\n`;
    expect(now === fixture, "the document changed where nothing should have").toBe(true);
    expect(now).toBe(fixture);
  });
});
