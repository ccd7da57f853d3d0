import Link from "next/link";
import type { NavLink } from "@/lib/accounts/navigation";

export function SettingsNav({ title, links, current }: { title: string; links: NavLink[]; current: string }) {
  if (links.length === 0) return null;
  return (
    <nav aria-label={title} className="space-y-1">
      <h2 className="px-2 pb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">{title}</h2>
      <ul className="space-y-0.5">
        {links.map((link) => {
          const active = current === link.href || (link.href !== "/settings" && current.startsWith(`${link.href}/`));
          return (
            <li key={link.href}>
              <Link
                href={link.href}
                aria-current={active ? "page" : undefined}
                className={`block rounded-md px-2 py-1.5 text-sm ${active ? "bg-brand-50 font-medium text-brand-700" : "text-slate-700 hover:bg-slate-100"}`}
              >
                {link.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
