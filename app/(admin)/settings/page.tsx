import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/page-header";
import { agencyNavigation } from "@/lib/accounts/navigation";
import { requireActor } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  const actor = await requireActor();
  const links = agencyNavigation(actor).filter((l) => l.href !== "/settings");
  return (
    <>
      <PageHeader
        title={`Welcome, ${actor.name}`}
        description="Choose what to manage. Use the sub-account switcher above to work in one sub-account."
      />
      <ul className="grid gap-4 sm:grid-cols-2">
        {links.map((link) => (
          <li key={link.href}>
            <Link
              href={link.href}
              className="block rounded-lg bg-white p-5 font-medium shadow-sm ring-1 ring-slate-200 hover:ring-brand-500"
            >
              {link.label}
            </Link>
          </li>
        ))}
      </ul>
    </>
  );
}
