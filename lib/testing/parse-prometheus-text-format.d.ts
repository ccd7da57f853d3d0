// The part of parse-prometheus-text-format's API the tests use (the package ships no types).
declare module "parse-prometheus-text-format" {
  interface ParsedSample {
    labels?: Record<string, string>;
    value?: string;
    /** Histograms: by upper bound (`le`), cumulative. */
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  interface ParsedFamily {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
    metrics: ParsedSample[];
  }
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
