import type { ComponentProps } from "react";

const tones = {
  /** Keys and code to copy: one line per line, scrolled sideways. */
  dark: "overflow-x-auto rounded-md bg-slate-900 p-3 text-xs text-slate-100",
  /** What a receiver sent or was sent: wraps anywhere, so a long line never widens the page. */
  light:
    "max-h-48 overflow-auto rounded bg-slate-100 p-2 font-mono text-xs whitespace-pre-wrap break-all text-slate-800",
} as const;

/** Preformatted text in its own scroll box, which therefore takes the keyboard focus (WCAG 2.1.1). */
export function CodeBlock({ tone = "dark", className, ...pre }: { tone?: keyof typeof tones } & ComponentProps<"pre">) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take keyboard focus (WCAG 2.1.1)
    <pre tabIndex={0} {...pre} className={className ? `${className} ${tones[tone]}` : tones[tone]} />
  );
}
