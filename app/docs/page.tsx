// Over 250 lines on purpose: the readable API reference renders the whole OpenAPI document built
// from the routes' declarations (navigation, errors, each operation's fields and examples), every
// part reading the same loosely typed document.
import type { Metadata } from "next";
import type { ReactNode } from "react";
import { documentedRoutes } from "@/app/route-table";
import { buildOpenApiDocument } from "@/lib/api/openapi/document";
import { methodColor } from "./method-colors";

/**
 * /docs: the API reference, rendered on the server from the same document as /openapi.json (no
 * scripts, no CDN), so the page and the machine-readable file cannot disagree.
 */
export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API reference" };

// biome-ignore lint/suspicious/noExplicitAny: the generated document is read loosely
type Node = any;

/** Prose from the OpenAPI document with its `code` spans shown as code, not as backticks. */
function Prose({ text }: { text: string }) {
  const parts = text.split(/`([^`]+)`/);
  return (
    <>
      {parts.map((part, i) =>
        i % 2 ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string, in order
          <code key={i} className="rounded bg-gray-100 px-1 font-mono text-[0.9em] break-all">
            {part}
          </code>
        ) : (
          part
        ),
      )}
    </>
  );
}

/** A copy-paste curl call of an operation: its auth, Version header and required body fields. */
function curlExample(doc: Node, method: string, path: string, op: Node): string {
  const lines = [
    `curl -X ${method.toUpperCase()} "$BASE_URL${path.replace(/\{(\w+)\}/g, (_m, name: string) => `$${name.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase()}`)}"`,
  ];
  if (op.security?.[0]?.bearer) lines.push(`-H "Authorization: Bearer $TOKEN"`);
  if (op.security?.[0]?.clientSecretBasic) lines.push(`-u "$CLIENT_ID:$CLIENT_SECRET"`);
  for (const p of op.parameters ?? []) {
    if (p.in === "header" && p.required)
      lines.push(`-H "${p.name}: ${p.schema?.const ?? p.schema?.examples?.[0] ?? p.example ?? "…"}"`);
  }
  const query = (op.parameters ?? []).filter((p: Node) => p.in === "query" && p.required);
  if (query.length) lines[0] = lines[0]!.replace(/"$/, `?${query.map((p: Node) => `${p.name}=…`).join("&")}"`);
  const body = op.requestBody ? (Object.entries(op.requestBody.content)[0] as [string, Node]) : undefined;
  if (body) {
    const schema = resolve(doc, body[1].schema);
    const required: string[] = schema?.required ?? Object.keys(schema?.properties ?? {}).slice(0, 3);
    const value = (name: string) => {
      const property = resolve(doc, schema?.properties?.[name]);
      return property?.const ?? property?.examples?.[0] ?? property?.enum?.[0] ?? "…";
    };
    if (body[0] === "application/json") {
      lines.push(`-H "Content-Type: application/json"`);
      const json = Object.fromEntries(required.map((name) => [name, value(name)]));
      lines.push(`-d '${JSON.stringify(json)}'`);
    } else {
      for (const name of required) lines.push(`--data-urlencode "${name}=${value(name)}"`);
    }
  }
  return lines.join(" \\\n  ");
}

function slug(method: string, path: string): string {
  return `${method}-${path}`.replace(/[^a-zA-Z0-9]+/g, "-").replace(/-+$/, "");
}

function resolve(doc: Node, schema: Node): Node {
  if (schema?.$ref) return doc.components.schemas[schema.$ref.split("/").pop()];
  return schema;
}

function typeOf(schema: Node): string {
  if (!schema) return "any";
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v: unknown) => JSON.stringify(v)).join(" | ");
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(" | ");
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : (schema.type ?? "any");
  if (type === "array") return `array of ${typeOf(schema.items)}`;
  return schema.format ? `${type} (${schema.format})` : type;
}

function constraints(schema: Node): string[] {
  const out: string[] = [];
  if (schema?.minLength !== undefined) out.push(`min ${schema.minLength} chars`);
  if (schema?.maxLength !== undefined) out.push(`max ${schema.maxLength} chars`);
  if (schema?.pattern && schema.format !== "email") out.push(`pattern ${schema.pattern}`);
  if (schema?.examples?.length) out.push(`e.g. ${JSON.stringify(schema.examples[0])}`);
  return out;
}

function Fields({ doc, schema }: { doc: Node; schema: Node }) {
  const resolved = resolve(doc, schema);
  const properties: [string, Node][] = Object.entries(resolved?.properties ?? {});
  if (!properties.length) return <p className="text-sm text-gray-600">{typeOf(resolved)}</p>;
  const required = new Set<string>(resolved.required ?? []);
  return (
    <table className="w-full table-fixed border-collapse text-left text-sm [overflow-wrap:anywhere]">
      <thead>
        <tr className="border-b border-gray-200 text-gray-600">
          <th className="w-1/4 py-1 pr-4 font-medium">Field</th>
          <th className="w-1/4 py-1 pr-4 font-medium">Type</th>
          <th className="py-1 font-medium">Notes</th>
        </tr>
      </thead>
      <tbody>
        {properties.map(([name, property]) => (
          <tr key={name} className="border-b border-gray-100 align-top">
            <td className="py-1 pr-4 font-mono">
              {name}
              {required.has(name) ? <span className="text-red-700"> *</span> : null}
            </td>
            <td className="py-1 pr-4 font-mono text-gray-700">
              {property.type === "object" ? "object" : typeOf(property)}
            </td>
            <td className="py-1 break-words text-gray-700 [overflow-wrap:anywhere]">
              <Prose text={[property.description, ...constraints(property)].filter(Boolean).join("; ")} />
              {property.type === "object" && property.properties ? (
                <div className="mt-1">
                  <Fields doc={doc} schema={property} />
                </div>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="mt-3">
      <h4 className="text-sm font-semibold text-gray-800">{title}</h4>
      <div className="mt-1">{children}</div>
    </div>
  );
}

function Operation({ doc, method, path, op }: { doc: Node; method: string; path: string; op: Node }) {
  const body = op.requestBody ? (Object.entries(op.requestBody.content)[0] as [string, Node]) : undefined;
  const scopes: string[] = op.security?.[0]?.bearer ?? [];
  const auth = op.security?.[0]?.bearer
    ? "Bearer token (access token or pit- private-integration token)"
    : op.security?.[0]?.clientSecretBasic
      ? "Client credentials (HTTP Basic or client_id and client_secret in the form)"
      : "None";
  return (
    <section
      id={slug(method, path)}
      className="rounded border border-gray-200 p-4"
      aria-label={`${method.toUpperCase()} ${path}`}
    >
      <h3 className="flex items-center gap-2 font-mono text-base">
        <span className={`rounded px-2 py-0.5 text-xs font-bold uppercase ${methodColor(method)}`}>{method}</span>
        {path}
      </h3>
      <p className="mt-1 font-medium">{op.summary}</p>
      {op.description.split("\n\n").map((paragraph: string) => (
        <p key={paragraph} className="mt-1 text-sm text-gray-700">
          <Prose text={paragraph} />
        </p>
      ))}
      <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-4 text-sm">
        <dt className="text-gray-600">Authentication</dt>
        <dd>{auth}</dd>
        {scopes.length ? (
          <>
            <dt className="text-gray-600">Scope</dt>
            <dd className="font-mono">{scopes.join(", ")}</dd>
          </>
        ) : null}
        {op["x-rate-limited"] ? (
          <>
            <dt className="text-gray-600">Rate limited</dt>
            <dd>yes, with X-RateLimit-* headers</dd>
          </>
        ) : null}
      </dl>
      {op.parameters.length ? (
        <Section title="Parameters">
          <table className="w-full table-fixed border-collapse text-left text-sm [overflow-wrap:anywhere]">
            <tbody>
              {op.parameters.map((p: Node) => (
                <tr key={`${p.in}-${p.name}`} className="border-b border-gray-100 align-top">
                  <td className="py-1 pr-4 font-mono">
                    {p.name}
                    {p.required ? <span className="text-red-700"> *</span> : null}
                  </td>
                  <td className="py-1 pr-4 text-gray-600">{p.in}</td>
                  <td className="py-1 pr-4 font-mono text-gray-700">{typeOf(p.schema)}</td>
                  <td className="py-1 text-gray-700 [overflow-wrap:anywhere]">
                    <Prose text={[p.description, ...constraints(p.schema)].filter(Boolean).join("; ")} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
      ) : null}
      {body ? (
        <Section title={`Body (${body[0]})`}>
          <Fields doc={doc} schema={body[1].schema} />
        </Section>
      ) : null}
      <Section title="Example">
        <pre
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take keyboard focus (WCAG 2.1.1)
          tabIndex={0}
          className="overflow-x-auto rounded bg-gray-900 p-3 text-xs text-gray-100"
        >
          <code>{curlExample(doc, method, path, op)}</code>
        </pre>
      </Section>
      <Section title="Responses">
        <ul className="space-y-2 text-sm">
          {Object.entries<Node>(op.responses).map(([status, response]) => {
            const content = response.content ? (Object.entries(response.content)[0] as [string, Node]) : undefined;
            const isError = Number(status) >= 400;
            return (
              <li key={status}>
                <span className={`font-mono font-semibold ${isError ? "text-red-800" : "text-emerald-800"}`}>
                  {status}
                </span>{" "}
                {response.description.split("\n\n").map((line: string) => (
                  <span key={line} className="block pl-8 break-words text-gray-700">
                    <Prose text={line} />
                  </span>
                ))}
                {!isError && content?.[1]?.schema ? (
                  <div className="mt-1 pl-8">
                    <Fields doc={doc} schema={content[1].schema} />
                  </div>
                ) : null}
              </li>
            );
          })}
        </ul>
      </Section>
    </section>
  );
}

export default function DocsPage() {
  const doc: Node = buildOpenApiDocument(documentedRoutes);
  const operations = Object.entries<Node>(doc.paths).flatMap(([path, item]) =>
    Object.entries<Node>(item).map(([method, op]) => ({ path, method, op })),
  );
  const tags: string[] = doc.tags.map((t: Node) => t.name);
  const [intro, ...rest] = (doc.info.description as string).split("\n\n");
  return (
    <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:grid lg:grid-cols-[16rem_minmax(0,1fr)] lg:gap-10">
      <nav
        aria-label="Endpoints"
        className="pt-8 text-sm lg:sticky lg:top-0 lg:mb-0 lg:max-h-screen lg:overflow-y-auto lg:py-8"
      >
        <h2 className="text-lg font-semibold">Endpoints</h2>
        {tags.map((tag) => (
          <div key={tag} className="mt-3">
            <h3 className="text-xs font-semibold tracking-wide text-gray-600 uppercase">{tag}</h3>
            <ul className="mt-1 space-y-1">
              {operations
                .filter(({ op }) => op.tags.includes(tag))
                .map(({ path, method, op }) => (
                  <li key={`${method} ${path}`}>
                    <a className="block break-all text-blue-700 underline" href={`#${slug(method, path)}`}>
                      <span className="font-mono uppercase">{method}</span> <span className="font-mono">{path}</span>
                    </a>
                    <span className="block text-xs text-gray-600">{op.summary}</span>
                  </li>
                ))}
            </ul>
          </div>
        ))}
        <p className="mt-3">
          <a className="text-blue-700 underline" href="#errors">
            Errors
          </a>
        </p>
      </nav>
      <main className="min-w-0 py-8">
        <h1 className="text-2xl font-semibold">{doc.info.title}</h1>
        <p className="mt-1 text-sm text-gray-600">
          OpenAPI {doc.openapi}, version {doc.info.version}. Machine-readable:{" "}
          <a className="text-blue-700 underline" href="/openapi.json">
            /openapi.json
          </a>
          .
        </p>
        <p className="mt-4">
          <Prose text={intro ?? ""} />
        </p>
        {rest.map((block) => {
          const lines = block.split("\n");
          const items = lines.filter((l) => /^\d+\. /.test(l));
          return items.length ? (
            <div key={block} className="mt-3">
              <p>{lines[0]}</p>
              <ol className="mt-1 list-decimal pl-6 text-sm">
                {items.map((item) => (
                  <li key={item}>
                    <Prose text={item.replace(/^\d+\. /, "")} />
                  </li>
                ))}
              </ol>
            </div>
          ) : (
            <p key={block} className="mt-3 text-sm text-gray-800">
              <Prose text={block} />
            </p>
          );
        })}

        <section aria-labelledby="errors" className="mt-8">
          <h2 id="errors" className="text-lg font-semibold">
            Errors
          </h2>
          <p className="mt-1 text-sm text-gray-700">
            Every error answer has this body; the list is generated from the code, so it is complete.
          </p>
          <table className="mt-2 w-full table-fixed border-collapse text-left text-sm [overflow-wrap:anywhere]">
            <thead>
              <tr className="border-b border-gray-300 text-gray-600">
                <th className="w-1/4 py-1 pr-4 font-medium">Code</th>
                <th className="w-16 py-1 pr-4 font-medium">Status</th>
                <th className="py-1 font-medium">Meaning and example</th>
              </tr>
            </thead>
            <tbody>
              {doc["x-error-codes"].map((entry: Node) => (
                <tr key={entry.code} id={`error-${entry.code}`} className="border-b border-gray-100 align-top">
                  <td className="py-2 pr-4 font-mono">{entry.code}</td>
                  <td className="py-2 pr-4 font-mono">{entry.status}</td>
                  <td className="py-2">
                    <p>{entry.meaning}</p>
                    <pre
                      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take keyboard focus (WCAG 2.1.1)
                      tabIndex={0}
                      className="mt-1 overflow-x-auto rounded bg-gray-50 p-2 text-xs"
                    >
                      {JSON.stringify(entry.example, null, 2)}
                    </pre>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>

        {tags.map((tag) => (
          <section key={tag} aria-labelledby={`tag-${tag}`} className="mt-8">
            <h2 id={`tag-${tag}`} className="text-lg font-semibold">
              {tag}
            </h2>
            <div className="mt-2 space-y-4">
              {operations
                .filter(({ op }) => op.tags.includes(tag))
                .map(({ path, method, op }) => (
                  <Operation key={`${method} ${path}`} doc={doc} method={method} path={path} op={op} />
                ))}
            </div>
          </section>
        ))}
      </main>
    </div>
  );
}
