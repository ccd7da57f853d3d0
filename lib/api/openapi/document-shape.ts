import { z } from "zod";

/**
 * The parts of the OpenAPI document (./document.ts) that /docs reads (./reference.ts), as zod
 * schemas: the document is built as loose JSON, and reading it through these gives typed values,
 * or an error naming the field when its shape changed.
 */

/** The JSON Schema of a field, as far as the reference shows it. */
export interface SchemaNode {
  $ref?: string;
  type?: string | string[];
  format?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: SchemaNode[];
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  description?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  examples?: unknown[];
}

const schemaNode: z.ZodType<SchemaNode> = z.lazy(() =>
  z.looseObject({
    $ref: z.string().optional(),
    type: z.union([z.string(), z.array(z.string())]).optional(),
    format: z.string().optional(),
    const: z.unknown().optional(),
    enum: z.array(z.unknown()).optional(),
    anyOf: z.array(schemaNode).optional(),
    items: schemaNode.optional(),
    properties: z.record(z.string(), schemaNode).optional(),
    required: z.array(z.string()).optional(),
    description: z.string().optional(),
    minLength: z.number().optional(),
    maxLength: z.number().optional(),
    pattern: z.string().optional(),
    examples: z.array(z.unknown()).optional(),
  }),
);

export const content = z.record(z.string(), z.looseObject({ schema: schemaNode.optional() }));

const operationSchema = z.looseObject({
  tags: z.array(z.string()),
  summary: z.string(),
  description: z.string(),
  security: z.array(z.record(z.string(), z.array(z.string()))),
  "x-rate-limited": z.boolean().optional(),
  parameters: z.array(
    z.looseObject({
      name: z.string(),
      in: z.string(),
      required: z.boolean().optional(),
      description: z.string().optional(),
      example: z.unknown().optional(),
      schema: schemaNode.optional(),
    }),
  ),
  requestBody: z.looseObject({ content }).optional(),
  responses: z.record(z.string(), z.looseObject({ description: z.string(), content: content.optional() })),
});
export type OperationObject = z.infer<typeof operationSchema>;

export const documentSchema = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string(), description: z.string() }),
  tags: z.array(z.looseObject({ name: z.string() })),
  paths: z.record(z.string(), z.record(z.string(), operationSchema)),
  components: z.looseObject({ schemas: z.record(z.string(), schemaNode) }),
  "x-error-codes": z.array(
    z.looseObject({ code: z.string(), status: z.number(), meaning: z.string(), example: z.unknown() }),
  ),
});
export type OpenApiDocument = z.infer<typeof documentSchema>;
