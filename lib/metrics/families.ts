import { Counter, Histogram, type Registry } from "prom-client";
import { METHODS, OTHER } from "./labels";

/**
 * The two kinds of family whose counting runs on the request path. prom-client's own `inc` and
 * `observe` build a string key from the label object on every call (and `observe` two objects
 * more); here a request adds to a number at an index, and the counts are handed to prom-client's
 * registry only when Prometheus scrapes.
 */

/** A label and its fixed values; `other` should be the last one where a caller may pass anything. */
export type FixedLabel = readonly [name: string, values: readonly string[]];

/** A counter over fixed label lists: one number per combination, the last label varying fastest. */
export class FixedCounter {
  readonly counts: Float64Array;
  /** The stride of each label's index: `counts[a * strides[0] + b * strides[1] + …]`. */
  readonly strides: number[];

  constructor(registry: Registry, name: string, help: string, labels: readonly FixedLabel[]) {
    this.strides = labels.map((_, i) => labels.slice(i + 1).reduce((n, [, values]) => n * values.length, 1));
    const size = labels.reduce((n, [, values]) => n * values.length, 1);
    const counts = new Float64Array(size);
    this.counts = counts;
    const labelSets = Array.from({ length: size }, (_, index) =>
      Object.fromEntries(
        labels.map(([label, values], i) => [
          label,
          values[Math.floor(index / (this.strides[i] as number)) % values.length] as string,
        ]),
      ),
    );
    new Counter({
      name,
      help,
      labelNames: labels.map(([label]) => label),
      registers: [registry],
      // Every combination, zeros included: a rate over a series that appears late misses its first counts.
      collect() {
        this.reset();
        for (let i = 0; i < size; i++) this.inc(labelSets[i] as Record<string, string>, counts[i] as number);
      },
    });
  }

  /** Counts one at `index` (from the strides). */
  inc(index: number): void {
    (this.counts[index] as number)++;
  }
}

/** Upper bounds of `http_request_duration_seconds`: the API answers in milliseconds, so finer at the low end. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** A route and method's answers: count per status, and the duration histogram. */
interface MethodCell {
  statuses: Map<number, number>;
  /** Per bucket, not cumulative; the last is +Inf. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

/** A route's cells by `METHODS` index, made on the first request of each method. */
type RouteRow = (MethodCell | undefined)[];

/**
 * `http_requests_total{route,method,status}` and `http_request_duration_seconds{route,method}`. Only
 * declared route patterns (the route table's) get a row of their own; any other route is `other`.
 */
export class HttpFamilies {
  private readonly rows = new Map<string, RouteRow>();
  private readonly other: RouteRow = [];

  constructor(
    registry: Registry,
    private readonly declared: ReadonlySet<string>,
  ) {
    this.rows.set(OTHER, this.other);
    const rows = this.rows;
    new Counter({
      name: "http_requests_total",
      help: "HTTP requests answered, by route pattern, method and status.",
      labelNames: ["route", "method", "status"],
      registers: [registry],
      collect() {
        this.reset();
        for (const [route, row] of rows) {
          row.forEach((cell, m) => {
            for (const [status, n] of cell?.statuses ?? []) {
              this.inc({ route, method: METHODS[m], status: status === 0 ? OTHER : String(status) }, n);
            }
          });
        }
      },
    });
    registry.registerMetric(new CountedHistogram(rows));
  }

  /** Counts an answer of `route` (a declared pattern, else `other`) that took `seconds`. */
  record(route: string, method: number, status: number, seconds: number): void {
    let row = this.rows.get(route);
    if (row === undefined) {
      if (this.declared.has(route)) {
        row = [];
        this.rows.set(route, row);
      } else row = this.other;
    }
    let cell = row[method];
    if (cell === undefined) {
      cell = { statuses: new Map(), buckets: new Float64Array(DURATION_BUCKETS.length + 1), sum: 0, count: 0 };
      row[method] = cell;
    }
    cell.statuses.set(status, (cell.statuses.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[bucket] as number)) bucket++;
    (cell.buckets[bucket] as number)++;
    cell.sum += seconds;
    cell.count++;
  }
}

type HistogramObject = Awaited<ReturnType<Histogram<"route" | "method" | "le">["get"]>>;

const DURATION_NAME = "http_request_duration_seconds";
const DURATION_HELP = "Time from a request's headers to its answer, by route pattern and method.";
/** prom-client's types name an enum here; its registry reads the type's name, as its own histogram gives it. */
const HISTOGRAM_TYPE = "histogram" as unknown as HistogramObject["type"];

/**
 * prom-client's Histogram, answering from the rows' own buckets: `get` (and `getForPromString`,
 * which the registry prefers) give the values in the shape the registry writes (`le` cumulative,
 * then `_sum` and `_count`), as its own histogram would.
 */
class CountedHistogram extends Histogram<"route" | "method" | "le"> {
  constructor(private readonly rows: Map<string, RouteRow>) {
    super({
      name: DURATION_NAME,
      help: DURATION_HELP,
      labelNames: ["route", "method"],
      buckets: [...DURATION_BUCKETS],
      registers: [],
    });
  }

  override async get(): Promise<HistogramObject> {
    const values: HistogramObject["values"] = [];
    for (const [route, row] of this.rows) {
      row.forEach((cell, m) => {
        if (!cell) return;
        const method = METHODS[m] as string;
        let cumulative = 0;
        DURATION_BUCKETS.forEach((le, i) => {
          cumulative += cell.buckets[i] as number;
          values.push({ labels: { route, method, le }, value: cumulative, metricName: `${DURATION_NAME}_bucket` });
        });
        values.push({
          labels: { route, method, le: "+Inf" },
          value: cell.count,
          metricName: `${DURATION_NAME}_bucket`,
        });
        values.push({ labels: { route, method }, value: cell.sum, metricName: `${DURATION_NAME}_sum` });
        values.push({ labels: { route, method }, value: cell.count, metricName: `${DURATION_NAME}_count` });
      });
    }
    return { name: DURATION_NAME, help: DURATION_HELP, type: HISTOGRAM_TYPE, aggregator: "sum", collect() {}, values };
  }

  getForPromString(): Promise<HistogramObject> {
    return this.get();
  }
}
