// The bench's chained refresh client, for (e′), (R′) and (Le′) alike: each chain refreshes as an
// app does, sending its refresh token, waiting for the answer and sending the refresh_token of that
// answer next, as soon as it arrives. One process per turn, apart from the bench's own (which runs
// autocannon for the other scenarios), with node's own fetch, as an app on Node.js would send it
// (its Accept-Encoding included), or (`client: "http"`, `npm run bench -- --chain-client http`)
// node:http with a keep-alive agent, as axios and most older Node.js clients send it: the same
// requests for a fraction of fetch's CPU, which shares the cores with the servers. Run by
// scripts/bench/chain-scenarios.ts:
//   node --import tsx scripts/bench/chains.ts <job.json>
// reads a ChainJob from <job.json> and writes a ChainResult to <job.json>.out.
import { readFileSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";

export interface ChainJob {
  /** The token endpoint: http://localhost:<port>/oauth/token. */
  url: string;
  clientId: string;
  clientSecret: string;
  /** One live refresh token per chain. */
  tokens: string[];
  seconds: number;
  client: ChainClient;
}

export type ChainClient = "fetch" | "http";

/** One POST of `form` to `url`: the answer's status and text. */
type Post = (url: string, form: string) => Promise<{ status: number; text: string }>;

const FORM_TYPE = "application/x-www-form-urlencoded";

const viaFetch: Post = async (url, form) => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": FORM_TYPE }, body: form });
  return { status: response.status, text: await response.text() };
};

/** node:http, its connections kept alive, one per chain (as fetch keeps them). */
function viaHttp(chains: number): Post {
  const agent = new Agent({ keepAlive: true, maxSockets: chains });
  return (url, form) =>
    new Promise((resolve, reject) => {
      const headers = { "content-type": FORM_TYPE, "content-length": Buffer.byteLength(form) };
      const sent = request(url, { method: "POST", agent, headers }, (answer) => {
        let text = "";
        answer.setEncoding("utf8");
        answer.on("data", (chunk: string) => {
          text += chunk;
        });
        answer.on("end", () => resolve({ status: answer.statusCode ?? 0, text }));
        answer.on("error", reject);
      });
      sent.on("error", reject);
      sent.end(form);
    });
}

export interface ChainResult {
  /** Answers received within the turn (the last of each chain may land just after it). */
  total: number;
  non2xx: number;
  errors: number;
  /** From the first request sent to the last answer received. */
  seconds: number;
  mean: number;
  p50: number;
  p99: number;
  /** Each chain's live token at the end, null where a refusal or an error broke the chain. */
  tokens: (string | null)[];
  /** The first answer that was not a 200 with a refresh_token, for the bench to show. */
  firstRefusal?: string;
  /** This client's own CPU over the turn (µs, user + system): it shares the cores with the servers. */
  cpuUs: number;
}

/** The `q`-quantile of sorted latencies (nearest rank). */
const quantile = (sorted: number[], q: number) =>
  sorted.length ? (sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number) : 0;

export async function runChains(job: ChainJob): Promise<ChainResult> {
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let firstRefusal: string | undefined;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const post = job.client === "http" ? viaHttp(job.tokens.length) : viaFetch;
  const deadline = started + job.seconds * 1000;
  const chain = async (first: string): Promise<string | null> => {
    let token = first;
    while (performance.now() < deadline) {
      const sent = performance.now();
      try {
        const form = new URLSearchParams({
          grant_type: "refresh_token",
          client_id: job.clientId,
          client_secret: job.clientSecret,
          refresh_token: token,
        }).toString();
        const response = await post(job.url, form);
        const text = response.text;
        latencies.push(performance.now() - sent);
        const next =
          response.status === 200 ? (JSON.parse(text) as { refresh_token?: unknown }).refresh_token : undefined;
        if (typeof next !== "string") {
          if (response.status === 200) errors += 1;
          else non2xx += 1;
          firstRefusal ??= `${response.status}: ${text.slice(0, 300)}`;
          return null;
        }
        token = next;
      } catch (error) {
        errors += 1;
        firstRefusal ??= error instanceof Error ? error.message : String(error);
        return null;
      }
    }
    return token;
  };
  const tokens = await Promise.all(job.tokens.map(chain));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  return {
    total: latencies.length,
    non2xx,
    errors,
    seconds,
    mean: latencies.length ? latencies.reduce((sum, ms) => sum + ms, 0) / latencies.length : 0,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    tokens,
    firstRefusal,
    cpuUs: used.user + used.system,
  };
}

const jobFile = process.argv[2];
if (jobFile && process.argv[1]?.endsWith("chains.ts")) {
  const job = JSON.parse(readFileSync(jobFile, "utf8")) as ChainJob;
  runChains(job).then(
    (result) => writeFileSync(`${jobFile}.out`, JSON.stringify(result)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
