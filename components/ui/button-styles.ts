/** Button classes, usable from server and client components alike. */
export function buttonClass(variant: "primary" | "secondary" | "danger" = "primary"): string {
  const base =
    "inline-flex items-center justify-center gap-2 rounded-md px-3.5 py-2 text-sm font-medium shadow-sm transition disabled:cursor-not-allowed disabled:opacity-60";
  const styles = {
    primary: "bg-accent text-white hover:bg-accent-hover",
    secondary: "bg-surface text-slate-800 ring-1 ring-inset ring-slate-300 hover:bg-slate-50",
    danger: "bg-danger text-white hover:bg-danger-hover",
  } as const;
  return `${base} ${styles[variant]}`;
}
