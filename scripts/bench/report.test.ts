import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ScenarioResult } from "./load";
import {
  chainedTargets,
  type DatabaseRun,
  HAND_KEPT_HEADING,
  installationTokenTargets,
  keepHandKeptPart,
  limitTargets,
  table,
  turnOrder,
} from "./report";
import { loadGeneratorCost, stageTable } from "./time-report";

describe("bench-results.md: a full run keeps the hand-kept part", () => {
  const generated = "# Benchmark results\n\nMeasured now.\n\n### PGlite (embedded)\n\n| new |\n";

  it("writes the new results, then everything from the hand-kept heading on, unchanged", () => {
    const kept = `${HAND_KEPT_HEADING}\n\nA figure quoted by a comment.\n\n### Reliability readings\n\n| old |\n`;
    const previous = `# Benchmark results\n\nMeasured before.\n\n| old run |\n\n${kept}`;
    expect(keepHandKeptPart(generated, previous)).toBe(`${generated.trimEnd()}\n\n${kept}`);
  });

  it("writes the new results alone when there is no file yet, or no hand-kept part in it", () => {
    expect(keepHandKeptPart(generated, "")).toBe(generated);
    expect(keepHandKeptPart(generated, "# Benchmark results\n\n## Kept by hands off\n")).toBe(generated);
  });

  it("the committed bench-results.md has the part, and the figures comments link to are in it", () => {
    const file = readFileSync("bench-results.md", "utf8");
    const kept = file.slice(file.indexOf(`\n${HAND_KEPT_HEADING}\n`));
    expect(kept.length).toBeGreaterThan(HAND_KEPT_HEADING.length + 2);
    for (const heading of ["### Figures the code rests on", "### Reliability readings", "### How long the suites take"])
      expect(kept).toContain(`\n${heading}\n`);
  });
});

describe("the report's CPU per request (issue 28)", () => {
  const result = (id: string, rps: number, server?: number, postgres?: number): ScenarioResult =>
    scenarioResult(id, rps, { dbMsPerRequest: 1.5, serverCpuUsPerRequest: server, postgresCpuUsPerRequest: postgres });
  const run = (database: DatabaseRun["database"], results: ScenarioResult[]): DatabaseRun => ({
    database,
    label: database,
    duration: 10,
    connections: 50,
    results,
  });
  const postgres = run("postgres", [
    result("b", 1000, 600, 250),
    result("e", 400, 1500, 900),
    result("Lb", 5000, 200, 100),
    result("Le", 800, 700, 500),
  ]);

  it("adds the server's and PostgreSQL's CPU per request as the last two columns", () => {
    expect(table(postgres).split("\n").slice(0, 3)).toEqual([
      "| Scenario         | req/s | p50 ms | p99 ms | non-2xx | ratio to (a) | ratio to (L) | DB ms/req | DB calls/req | server CPU µs/req | PostgreSQL CPU µs/req |",
      "| ---------------- | ----: | -----: | -----: | ------: | -----------: | -----------: | --------: | -----------: | ----------------: | --------------------: |",
      "| (b) scenario b   |  1000 |     10 |     40 |       0 |            – | 0.20 of (Lb) |      1.50 |          1.0 |               600 |                   250 |",
    ]);
  });

  it("shows a dash for PostgreSQL's CPU on PGlite (it runs in the server's process), and for what was not measured", () => {
    const rows = table(run("pglite", [result("b", 900, 450), result("e", 300)])).split("\n");
    expect(rows[2]).toMatch(/\|\s+450 \|\s+– \|$/);
    expect(rows[3]).toMatch(/\|\s+– \|\s+– \|$/);
  });

  it("prints, beside each throughput ratio to (L), ours server + PostgreSQL CPU per request against (L)'s", () => {
    expect(limitTargets(postgres)).toBe(
      "(b) 0.20 of (Lb) (CPU per request: 2.8× (Lb)'s): misses 0.50; (c) against (Lc): not run; (e) 0.50 of (Le) (CPU per request: 2.0× (Le)'s): misses 0.70; (e) against (R): not run",
    );
  });

  it("calls a ratio not comparable when either side answered non-2xx (a token supply run out)", () => {
    const refusing = run("postgres", [result("e", 1000, 600), { ...result("Le", 3000, 200, 100), non2xx: 42 }]);
    expect(limitTargets(refusing)).toContain("(e) against (Le): not comparable, (Le) answered 42 non-2xx;");
  });

  it("measures the installation token (h) against node-oidc-provider's (Rh), issue 40's 1.5 ×", () => {
    const installation = run("postgres", [result("h", 1600, 500, 400), result("Rh", 1000, 800, 700)]);
    expect(installationTokenTargets(installation)).toBe("(h) 1.60 of (Rh) (CPU per request: 0.6× (Rh)'s): meets 1.50");
    expect(table(installation).split("\n")[2]).toMatch(/\| +1\.60 of \(Rh\) \|/);
    expect(installationTokenTargets(run("postgres", [result("h", 1600)]))).toBe("(h) against (Rh): not run");
    const slower = run("postgres", [result("h", 1400), result("Rh", 1000)]);
    expect(installationTokenTargets(slower)).toBe("(h) 1.40 of (Rh): misses 1.50");
  });

  it("leaves the CPU ratio out where either side's CPU was not measured", () => {
    const unmeasured = run("postgres", [result("b", 1000, 600), result("Lb", 5000, 200, 100)]);
    expect(limitTargets(unmeasured)).toMatch(/^\(b\) 0\.20 of \(Lb\): misses 0\.50;/);
  });
});

describe("the order of the turns", () => {
  const ids = (list: { id: string }[]) => list.map((s) => s.id).join(",");
  const of = (list: string) => list.split(",").map((id) => ({ id }));

  it("gives each peer its turn right after the scenario of ours it is compared with", () => {
    expect(ids(turnOrder(of("a,b,c,d,e,g,f,s,R,N,Lb,Lc,Le")))).toBe("a,N,b,Lb,c,Lc,d,e,R,Le,g,f,s");
  });

  it("gives (Rh) its turn right after the installation token (h)", () => {
    expect(ids(turnOrder(of("a,e,g,f,h,s,R,Rh,N")))).toBe("a,N,e,R,g,f,h,Rh,s");
    expect(ids(turnOrder(of("h,Rh")))).toBe("h,Rh");
  });

  it("keeps every scenario once, and a peer without its scenario last (--only)", () => {
    expect(ids(turnOrder(of("e,g,f,R")))).toBe("e,R,g,f");
    expect(ids(turnOrder(of("g,R,Lb")))).toBe("g,R,Lb");
    expect(ids(turnOrder(of("b,Lb,Le")))).toBe("b,Lb,Le");
  });
});

describe("chained refreshes and rows through a pooler (issue 44)", () => {
  const result = scenarioResult;
  const run = (results: ScenarioResult[]): DatabaseRun => ({
    database: "postgres",
    label: "PostgreSQL",
    duration: 10,
    connections: 50,
    results,
  });

  it("gives the chained peers their turns after (e′), and each row through the pooler after its direct twin", () => {
    const ids = (list: { id: string }[]) => list.map((s) => s.id).join(",");
    const all = "b,e,e′,R,R′,Lb,Le,Le′,bP,eP,e′P,LeP,Le′P".split(",").map((id) => ({ id }));
    expect(ids(turnOrder(all))).toBe("b,Lb,bP,e,R,Le,eP,LeP,e′,R′,Le′,e′P,Le′P");
  });

  it("checks (e′) against (Le′) and (R′), (e) against (Le), (b) against (Lb), and gives the pooled rows' ratios", () => {
    const measured = run([
      result("b", 700),
      result("e", 900),
      result("e′", 850),
      result("Lb", 1000),
      result("Le", 1000),
      result("Le′", 1000),
      result("R′", 400),
      result("bP", 600),
      result("eP", 500),
      result("LeP", 800),
    ]);
    expect(chainedTargets(measured)).toBe(
      "(e′) 0.85 of (Le′): meets 0.85; (e′) 2.13 of (R′): meets 2.00; (e) 0.90 of (Le): meets 0.85; (b) 0.70 of (Lb): meets 0.70; through PgBouncer: (bP) 600 req/s, 0.60 of (Lb), (eP) 500 req/s, 0.63 of (LeP)",
    );
    expect(chainedTargets(run([result("e′", 100)]))).toBe(
      "(e′) against (Le′): not run; (e′) against (R′): not run; (e) against (Le): not run; (b) against (Lb): not run; not run through PgBouncer",
    );
  });

  it("shows the chained rows' ratios in the table's columns, to (R′) and to (Le′)", () => {
    const rows = table(run([result("e′", 800), result("R′", 400), result("Le′", 1000)])).split("\n");
    expect(rows[2]).toMatch(/\|\s+2\.00 of \(R′\) \|\s+0\.80 of \(Le′\) \|/);
  });

  it("splits a request's time by stage, per request, beside the client's mean latency", () => {
    const stages = {
      request: { count: 100, totalMs: 500 },
      body: { count: 100, totalMs: 10 },
      handler: { count: 100, totalMs: 450 },
      poolWait: { count: 100, totalMs: 100 },
      roundTrip: { count: 100, totalMs: 300 },
      sign: { count: 100, totalMs: 20 },
    };
    const staged = run([{ ...result("e", 10), total: 100, mean: 8, stages }, result("Le", 20)]);
    const lines = (stageTable(staged) ?? "").split("\n");
    expect(lines).toHaveLength(3);
    // client mean, server, body, handler, pool wait, round trip, signing, handler's own, frame, outside the server
    expect(lines[2]?.split("|").map((cell) => cell.trim())).toEqual([
      "",
      "(e)",
      "8.00",
      "5.00",
      "0.10",
      "4.50",
      "1.00",
      "3.00",
      "0.20",
      "0.30",
      "0.40",
      "3.00",
      "",
    ]);
    expect(stageTable(run([result("e", 10)]))).toBeUndefined();
  });

  it("lists the load generator's CPU per request where it was measured", () => {
    const measured = run([
      result("e", 10, { loadCpuUsPerRequest: 45.4 }),
      result("e′", 10, { loadCpuUsPerRequest: 310 }),
    ]);
    expect(loadGeneratorCost(measured)).toBe("(e) 45, (e′) 310");
    expect(loadGeneratorCost(run([result("e", 10)]))).toBeUndefined();
  });
});

/** One scenario's row of a report, with what a test varies. */
function scenarioResult(id: string, rps: number, extra: Partial<ScenarioResult> = {}): ScenarioResult {
  return {
    id,
    name: `scenario ${id}`,
    requestsPerSecond: rps,
    p50: 10,
    p99: 40,
    total: rps * 10,
    non2xx: 0,
    errors: 0,
    dbMsPerRequest: 1,
    dbCallsPerRequest: 1,
    ...extra,
  };
}
