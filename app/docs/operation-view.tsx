import type { ReactNode } from "react";
import type { Fields as FieldsOf, ReferenceOperation } from "@/lib/api/openapi/reference";
import { methodColor } from "./method-colors";

/** One operation of /docs as lib/api/openapi/reference.ts reads it, and the pieces it is drawn with. */

/** Prose from the OpenAPI document with its `code` spans shown as code, not as backticks. */
export function Prose({ text }: { text: string }) {
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

function Fields({ fields }: { fields: FieldsOf }) {
  if (fields.kind === "type") return <p className="text-sm text-gray-600">{fields.type}</p>;
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
        {fields.rows.map((row) => (
          <tr key={row.name} className="border-b border-gray-100 align-top">
            <td className="py-1 pr-4 font-mono">
              {row.name}
              {row.required ? <span className="text-red-700"> *</span> : null}
            </td>
            <td className="py-1 pr-4 font-mono text-gray-700">{row.type}</td>
            <td className="py-1 break-words text-gray-700 [overflow-wrap:anywhere]">
              <Prose text={row.notes} />
              {row.nested ? (
                <div className="mt-1">
                  <Fields fields={row.nested} />
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

export function Operation({ op }: { op: ReferenceOperation }) {
  const { method, path } = op;
  return (
    <section id={op.id} className="rounded border border-gray-200 p-4" aria-label={`${method.toUpperCase()} ${path}`}>
      <h3 className="flex items-center gap-2 font-mono text-base">
        <span className={`rounded px-2 py-0.5 text-xs font-bold uppercase ${methodColor(method)}`}>{method}</span>
        {path}
      </h3>
      <p className="mt-1 font-medium">{op.summary}</p>
      {op.paragraphs.map((paragraph) => (
        <p key={paragraph} className="mt-1 text-sm text-gray-700">
          <Prose text={paragraph} />
        </p>
      ))}
      <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-4 text-sm">
        <dt className="text-gray-600">Authentication</dt>
        <dd>{op.auth}</dd>
        {op.scopes.length ? (
          <>
            <dt className="text-gray-600">Scope</dt>
            <dd className="font-mono">{op.scopes.join(", ")}</dd>
          </>
        ) : null}
        {op.rateLimited ? (
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
              {op.parameters.map((p) => (
                <tr key={`${p.in}-${p.name}`} className="border-b border-gray-100 align-top">
                  <td className="py-1 pr-4 font-mono">
                    {p.name}
                    {p.required ? <span className="text-red-700"> *</span> : null}
                  </td>
                  <td className="py-1 pr-4 text-gray-600">{p.in}</td>
                  <td className="py-1 pr-4 font-mono text-gray-700">{p.type}</td>
                  <td className="py-1 text-gray-700 [overflow-wrap:anywhere]">
                    <Prose text={p.notes} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
      ) : null}
      {op.body ? (
        <Section title={`Body (${op.body.contentType})`}>
          <Fields fields={op.body.fields} />
        </Section>
      ) : null}
      <Section title="Example">
        <pre
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take keyboard focus (WCAG 2.1.1)
          tabIndex={0}
          className="overflow-x-auto rounded bg-gray-900 p-3 text-xs text-gray-100"
        >
          <code>{op.curl}</code>
        </pre>
      </Section>
      <Section title="Responses">
        <ul className="space-y-2 text-sm">
          {op.responses.map((response) => (
            <li key={response.status}>
              <span className={`font-mono font-semibold ${response.isError ? "text-red-800" : "text-emerald-800"}`}>
                {response.status}
              </span>{" "}
              {response.lines.map((line) => (
                <span key={line} className="block pl-8 break-words text-gray-700">
                  <Prose text={line} />
                </span>
              ))}
              {response.fields ? (
                <div className="mt-1 pl-8">
                  <Fields fields={response.fields} />
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      </Section>
    </section>
  );
}
