import type { ReactNode } from "react";

export function Card({ children }: { children: ReactNode }) {
  return (
    <main className="flex min-h-screen items-start justify-center px-4 py-12">
      <div className="w-full max-w-lg rounded-xl bg-surface p-8 shadow-sm ring-1 ring-slate-200">{children}</div>
    </main>
  );
}

export function ErrorScreen({ status, title, message }: { status: 400 | 403; title: string; message: string }) {
  return (
    <Card>
      <p className="text-xs font-semibold tracking-wide text-red-600 uppercase">
        Error {status} · {status === 403 ? "Forbidden" : "Bad request"}
      </p>
      <h1 className="mt-1 text-xl font-semibold">{title}</h1>
      <p className="mt-3 text-sm text-slate-700">{message}</p>
      <p className="mt-6 text-sm">
        <a href="/marketplace" className="text-brand-700 underline">
          Back to the Marketplace
        </a>
      </p>
    </Card>
  );
}
