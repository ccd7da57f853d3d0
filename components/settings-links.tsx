import Link from "next/link";

/** The cards of a settings overview page: one link per screen the person may open. */
export function SettingsLinks({ links }: { links: readonly { href: string; label: string }[] }) {
  return (
    <ul className="grid gap-4 sm:grid-cols-2">
      {links.map((link) => (
        <li key={link.href}>
          <Link
            href={link.href}
            className="block rounded-lg bg-surface p-5 font-medium shadow-sm ring-1 ring-slate-200 hover:ring-brand-500"
          >
            {link.label}
          </Link>
        </li>
      ))}
    </ul>
  );
}
