import Link from "next/link";
import type { ReactNode } from "react";

/** A full-width explanation in place of a screen: feature off, no permission, not found. */
export function Notice({
  title,
  children,
  tone = "info",
}: {
  title: string;
  children: ReactNode;
  tone?: "info" | "warning";
}) {
  const colors =
    tone === "warning" ? "bg-amber-50 ring-amber-200 text-amber-900" : "bg-surface ring-slate-200 text-slate-800";
  return (
    <section aria-labelledby="notice-title" className={`rounded-lg p-6 shadow-sm ring-1 ${colors}`}>
      <h2 id="notice-title" className="text-base font-semibold">
        {title}
      </h2>
      <div className="mt-2 space-y-2 text-sm">{children}</div>
    </section>
  );
}

/** The screen a signed-in person sees where their role does not reach: what they may not do, and why. */
export function NoPermission({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Notice title={`You don't have permission to ${to}`} tone="warning">
      <p>{children}</p>
    </Notice>
  );
}

/** A Notice's way back to a screen the person can use. */
export function BackLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <p>
      <Link href={href} className="font-medium text-brand-700 underline">
        {children}
      </Link>
    </p>
  );
}
