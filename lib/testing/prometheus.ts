import parsePrometheusTextFormat from "parse-prometheus-text-format";

/**
 * A scrape read back with a Prometheus text-format parser (not ours), for the tests of lib/metrics,
 * the production-server checks and the bench: families by name and type, and each sample's labels
 * and value. parse-prometheus-text-format folds a histogram's samples into one only when they carry
 * no label but `le` (it drops labelled ones), so a histogram's `_bucket`, `_sum` and `_count` lines
 * are read a second time as families of their own.
 */
export interface Sample {
  labels: Record<string, string>;
  value: number;
}

export interface Scraped {
  /** Each family's type as its `# TYPE` line gives it (COUNTER, GAUGE, HISTOGRAM…) and its samples. */
  families: Map<string, { type: string; samples: Sample[] }>;
  /** The value of `family`'s first sample whose labels include `labels`. */
  value(family: string, labels?: Record<string, string>): number | undefined;
  /** A histogram's count, sum and cumulative buckets (by `le`) for the series whose labels include `labels`. */
  histogram(
    family: string,
    labels: Record<string, string>,
  ): { count: number; sum: number; buckets: Record<string, number> } | undefined;
}

const includes = (labels: Record<string, string>, wanted: Record<string, string>) =>
  Object.entries(wanted).every(([name, value]) => labels[name] === value);

export function parseScrape(text: string): Scraped {
  const families: Scraped["families"] = new Map();
  const read = (source: string) =>
    parsePrometheusTextFormat(source).map((family) => ({
      name: family.name,
      type: family.type,
      samples: family.metrics.map((sample) => ({ labels: sample.labels ?? {}, value: Number(sample.value) })),
    }));
  const histogramNames = new Set<string>();
  for (const family of read(text)) {
    if (family.type === "HISTOGRAM") histogramNames.add(family.name);
    families.set(family.name, { type: family.type, samples: family.type === "HISTOGRAM" ? [] : family.samples });
  }
  // The histograms' lines again, each suffix as a family of its own (its lines come back once per
  // series: `_bucket`…, `_sum`, `_count`, then the next series' `_bucket`…).
  const untyped = text.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped");
  for (const family of read(untyped)) {
    const base = family.name.replace(/_(bucket|sum|count)$/, "");
    if (family.name === base || !histogramNames.has(base)) continue;
    const known = families.get(family.name);
    if (known) known.samples.push(...family.samples);
    else families.set(family.name, { type: "UNTYPED", samples: family.samples });
  }
  const value = (family: string, labels: Record<string, string> = {}) =>
    families.get(family)?.samples.find((s) => includes(s.labels, labels))?.value;
  return {
    families,
    value,
    histogram: (family, labels) => {
      const count = value(`${family}_count`, labels);
      if (count === undefined) return undefined;
      const buckets: Record<string, number> = {};
      for (const sample of families.get(`${family}_bucket`)?.samples ?? []) {
        if (includes(sample.labels, labels) && sample.labels.le !== undefined) buckets[sample.labels.le] = sample.value;
      }
      return { count, sum: value(`${family}_sum`, labels) ?? Number.NaN, buckets };
    },
  };
}

/** GET `url` (a /metrics), read back. */
export async function scrape(
  url: string,
): Promise<{ status: number; contentType: string | null; scraped: Scraped; text: string }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    scraped: parseScrape(text),
    text,
  };
}
