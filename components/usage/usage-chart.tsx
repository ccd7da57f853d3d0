/**
 * A stacked bar chart of API requests per day (SPEC.md › Usage and reminders): `ok`, `refused` and
 * `limited` stacked, one bar a day, the newest on the right. Server-rendered SVG, no script; the
 * picture is hidden from screen readers, which read the same numbers in the table below it. Colours
 * differ in lightness, not only in hue; the dark scheme comes from app/globals.css's mirrored palette
 * (a `dark:` variant here would be mirrored twice). Its days are UTC days, as the counts are kept,
 * and say so in their captions.
 */
import { formatDay, formatShortDay } from "@/lib/dates/format";

export interface UsageChartDay {
  /** `YYYY-MM-DD` (UTC). */
  date: string;
  ok: number;
  refused: number;
  limited: number;
}

const outcomes = [
  {
    key: "ok",
    label: "Succeeded",
    swatch: "bg-emerald-600",
    fill: "fill-emerald-600",
  },
  {
    key: "refused",
    label: "Refused",
    swatch: "bg-amber-500",
    fill: "fill-amber-500",
  },
  {
    key: "limited",
    label: "Rate-limited",
    swatch: "bg-rose-700",
    fill: "fill-rose-700",
  },
] as const;

const WIDTH = 600;
const HEIGHT = 160;
const AXIS = 18;

/** A round number at or above `max` for the scale (1, 2, 5 × 10ⁿ). */
function niceMax(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return ([1, 2, 5, 10].map((m) => m * power).find((v) => v >= max) as number) ?? max;
}

export function UsageChart({ days, title, id }: { days: UsageChartDay[]; title: string; id: string }) {
  const totals = days.map((d) => d.ok + d.refused + d.limited);
  const top = niceMax(Math.max(0, ...totals));
  const plot = HEIGHT - AXIS;
  const slot = WIDTH / Math.max(1, days.length);
  const barWidth = Math.max(2, slot * 0.7);
  const sum = (key: "ok" | "refused" | "limited") => days.reduce((n, d) => n + d[key], 0);
  const first = days[0]?.date;
  const last = days.at(-1)?.date;
  return (
    <figure aria-labelledby={`${id}-title`} className="text-slate-700">
      <figcaption id={`${id}-title`} className="mb-2 text-sm font-medium">
        {title}
      </figcaption>
      <ul className="mb-2 flex flex-wrap gap-x-4 gap-y-1 text-xs" aria-label="Totals of the period">
        {outcomes.map((o) => (
          <li key={o.key} className="flex items-center gap-1.5">
            <span aria-hidden="true" className={`inline-block h-3 w-3 rounded-sm ${o.swatch}`} />
            {o.label}: <strong className="font-semibold">{sum(o.key).toLocaleString("en-US")}</strong>
          </li>
        ))}
      </ul>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        className="h-40 w-full"
        preserveAspectRatio="none"
        aria-hidden="true"
        focusable="false"
      >
        <line x1={0} x2={WIDTH} y1={plot} y2={plot} className="stroke-slate-300" strokeWidth={1} />
        <line x1={0} x2={WIDTH} y1={0.5} y2={0.5} className="stroke-slate-200" strokeWidth={1} strokeDasharray="4 4" />
        {days.map((day, i) => {
          let y = plot;
          const x = i * slot + (slot - barWidth) / 2;
          return (
            <g key={day.date}>
              <title>{`${formatDay(day.date)}: ${day.ok} succeeded, ${day.refused} refused, ${day.limited} rate-limited`}</title>
              {outcomes.map((o) => {
                const h = (day[o.key] / top) * plot;
                if (h <= 0) return null;
                y -= h;
                return <rect key={o.key} x={x} y={y} width={barWidth} height={h} className={o.fill} />;
              })}
            </g>
          );
        })}
      </svg>
      <div className="flex justify-between text-xs text-slate-500" aria-hidden="true">
        <span>{first ? formatShortDay(first) : ""}</span>
        <span>Scale: 0 to {top.toLocaleString("en-US")} requests a day</span>
        <span>{last ? formatShortDay(last) : ""}</span>
      </div>
      {/* A table ignores the width sr-only gives it (the page would scroll sideways at 390 px): its box is hidden instead. */}
      <div className="sr-only">
        <table>
          <caption>{title}, per day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {outcomes.map((o) => (
                <th key={o.key} scope="col">
                  {o.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.date}>
                <th scope="row">{formatDay(day.date)}</th>
                <td>{day.ok}</td>
                <td>{day.refused}</td>
                <td>{day.limited}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
