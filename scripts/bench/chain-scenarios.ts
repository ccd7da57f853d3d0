import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChainClient, ChainJob, ChainResult } from "./chains";
import type { LoadResult, Scenario } from "./load";

/** A refresh-token supply: the client that owns the tokens, and the tokens, each live, of a family of its own. */
export interface RefreshSupply {
  clientId: string;
  clientSecret: string;
  tokens: string[];
}

/** The chained client (./chains.ts): node's fetch unless `--chain-client http` (BENCH_CHAIN_CLIENT) says node:http. */
export function chainClient(): ChainClient {
  const client = process.env.BENCH_CHAIN_CLIENT ?? "fetch";
  if (client !== "fetch" && client !== "http") throw new Error("--chain-client takes fetch or http.");
  return client;
}

/** One turn of chains in a process of its own (./chains.ts), waited for. */
async function chainTurn(job: ChainJob): Promise<ChainResult> {
  const dir = mkdtempSync(join(tmpdir(), "bench-chains-"));
  const file = join(dir, "job.json");
  try {
    writeFileSync(file, JSON.stringify(job));
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/bench/chains.ts", file], {
      stdio: ["ignore", "inherit", "inherit"],
    });
    const code = await new Promise<number | null>((done) => child.once("exit", done));
    if (code !== 0) throw new Error(`the chained client exited with ${code}`);
    return JSON.parse(readFileSync(`${file}.out`, "utf8")) as ChainResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A chained refresh scenario: `chains` clients, each refreshing its own token as soon as its last
 * answer arrives, through ./chains.ts (the same client for us and for each peer). The chains take
 * their first tokens from the end of `supply` when they first run (autocannon's (e) and (Le) take
 * theirs from the start), and carry on from turn to turn with the tokens they hold; a chain broken
 * by a refusal starts again on a fresh token of the supply. `target`: a peer's server, or none for ours.
 */
export function chainScenario(
  id: string,
  name: string,
  supply: RefreshSupply,
  options: { chains: number; path: string; target?: Pick<Scenario, "baseUrl" | "pid" | "ourServer" | "poolerPid"> },
): Scenario {
  let live: string[] | undefined;
  const fresh = () => {
    const token = supply.tokens.pop();
    if (!token) throw new Error(`(${id}) ran out of seeded refresh tokens to start its chains with.`);
    return token;
  };
  return {
    id,
    name,
    expect: 200,
    requests: [],
    connections: options.chains,
    ...options.target,
    drive: async (baseUrl, seconds, warmup) => {
      live ??= Array.from({ length: options.chains }, fresh);
      const result = await chainTurn({
        url: `${baseUrl}${options.path}`,
        clientId: supply.clientId,
        clientSecret: supply.clientSecret,
        tokens: live,
        seconds,
        client: chainClient(),
      });
      // A misconfigured scenario fails loudly rather than benchmarking refusals.
      if (warmup && result.firstRefusal) throw new Error(`(${id}) ${name}: ${result.firstRefusal}`);
      if (result.firstRefusal) console.warn(`[bench] (${id}): a chain broke: ${result.firstRefusal}`);
      live = result.tokens.map((token) => token ?? fresh());
      const answered: LoadResult = {
        total: result.total,
        seconds: result.seconds,
        mean: result.mean,
        p50: result.p50,
        p99: result.p99,
        non2xx: result.non2xx,
        errors: result.errors,
        loadCpuUs: result.cpuUs,
      };
      return answered;
    },
  };
}
