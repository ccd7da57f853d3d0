/**
 * The paths of the screens (pages), which proxy.ts looks at and whose form posts the server's edge
 * (./direct-router.ts) checks the origin of. proxy.ts's `config.matcher` lists the same paths:
 * Next.js reads the matcher as a literal, so it cannot be built from this.
 */
const screens = [
  "/",
  "/login",
  "/settings",
  "/location",
  "/marketplace",
  "/developer",
  "/oauth/chooselocation",
  "/docs",
];

/** Whether `pathname` (no query) is a screen's path, with or without a trailing slash. */
export function isScreen(pathname: string): boolean {
  return screens.some((s) => pathname === s || (s !== "/" && pathname.startsWith(`${s}/`)));
}
