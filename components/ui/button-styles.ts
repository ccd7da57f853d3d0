/**
 * Button classes, usable from server and client components alike. A disabled (pending) button keeps
 * its colours: faded to 60 % its white text fell below WCAG AA's contrast, which axe caught on the
 * Sign in button after a refusal (bench-results.md › Figures the code rests on). It says it is
 * working by its label ("Signing in…") and its cursor instead.
 */
export function buttonClass(variant: "primary" | "secondary" | "danger" = "primary"): string {
  const base =
    "inline-flex items-center justify-center gap-2 rounded-md px-3.5 py-2 text-sm font-medium shadow-sm transition disabled:cursor-not-allowed disabled:shadow-none";
  const styles = {
    primary: "bg-accent text-white hover:bg-accent-hover",
    secondary: "bg-surface text-slate-800 ring-1 ring-inset ring-slate-500 hover:bg-slate-50",
    danger: "bg-danger text-white hover:bg-danger-hover",
  } as const;
  return `${base} ${styles[variant]}`;
}
