import type { Metadata } from "next";
import { documentedRoutes } from "@/app/route-table";
import { buildOpenApiDocument } from "@/lib/api/openapi/document";
import { apiReference } from "@/lib/api/openapi/reference";
import { Operation, Prose } from "./operation-view";

/**
 * /docs: the API reference, rendered on the server from the same document as /openapi.json (no
 * scripts, no CDN), so the page and the machine-readable file cannot disagree. What it shows of the
 * document is read by lib/api/openapi/reference.ts; this file only renders it.
 */
export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API reference" };

export default function DocsPage() {
  const reference = apiReference(buildOpenApiDocument(documentedRoutes));
  return (
    <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:grid lg:grid-cols-[16rem_minmax(0,1fr)] lg:gap-10">
      <nav
        aria-label="Endpoints"
        className="pt-8 text-sm lg:sticky lg:top-0 lg:mb-0 lg:max-h-screen lg:overflow-y-auto lg:py-8"
      >
        <h2 className="text-lg font-semibold">Endpoints</h2>
        {reference.tags.map((tag) => (
          <div key={tag.name} className="mt-3">
            <h3 className="text-xs font-semibold tracking-wide text-gray-600 uppercase">{tag.name}</h3>
            <ul className="mt-1 space-y-1">
              {tag.operations.map((op) => (
                <li key={op.id}>
                  <a className="block break-all text-blue-700 underline" href={`#${op.id}`}>
                    <span className="font-mono uppercase">{op.method}</span>{" "}
                    <span className="font-mono">{op.path}</span>
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
        <h1 className="text-2xl font-semibold">{reference.title}</h1>
        <p className="mt-1 text-sm text-gray-600">
          OpenAPI {reference.openapi}, version {reference.version}. Machine-readable:{" "}
          <a className="text-blue-700 underline" href="/openapi.json">
            /openapi.json
          </a>
          .
        </p>
        <p className="mt-4">
          <Prose text={reference.intro} />
        </p>
        {reference.blocks.map((block) =>
          block.kind === "list" ? (
            <div key={block.lead} className="mt-3">
              <p>{block.lead}</p>
              <ol className="mt-1 list-decimal pl-6 text-sm">
                {block.items.map((item) => (
                  <li key={item}>
                    <Prose text={item} />
                  </li>
                ))}
              </ol>
            </div>
          ) : (
            <p key={block.text} className="mt-3 text-sm text-gray-800">
              <Prose text={block.text} />
            </p>
          ),
        )}

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
              {reference.errors.map((entry) => (
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
                      {entry.example}
                    </pre>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>

        {reference.tags.map((tag) => (
          <section key={tag.name} aria-labelledby={`tag-${tag.name}`} className="mt-8">
            <h2 id={`tag-${tag.name}`} className="text-lg font-semibold">
              {tag.name}
            </h2>
            <div className="mt-2 space-y-4">
              {tag.operations.map((op) => (
                <Operation key={op.id} op={op} />
              ))}
            </div>
          </section>
        ))}
      </main>
    </div>
  );
}
