import Link from "next/link";
import { panelClass } from "@/components/ui/panel";

/** The cards of a settings overview page: one link per screen the person may open. */
export function SettingsLinks({ links }: { links: readonly { href: string; label: string }[] }) {
  return (
    <ul className="grid gap-4 sm:grid-cols-2">
      {links.map((link) => (
        <li key={link.href}>
          <Link href={link.href} className={`${panelClass} block p-5 font-medium hover:ring-brand-500`}>
            {link.label}
          </Link>
        </li>
      ))}
    </ul>
  );
}
