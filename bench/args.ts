import { parseArgs } from "node:util";
import { z } from "zod";

/** The history reads measured, licensed, each beside a ceiling serving its bytes (bench/history.ts). */
export const HISTORY_ROW_IDS = ["history-asof", "history-regime", "history-names", "history-changes"] as const;
/**
 * The chain cadences the paid rows run on, as block intervals in ms: automine (a block per
 * transaction, at once), a block every 100 ms, and a block every 2 s (as Base mines).
 */
export const CADENCES = { instant: 0, "100ms": 100, "2s": 2000 } as const;
export type Cadence = keyof typeof CADENCES;
/** The local node a paid row's chain runs on: hardhat's EDR (in the bench's chain thread) or Foundry's anvil (a process). */
export const CHAIN_ENGINES = ["edr", "anvil"] as const;
export type ChainEngine = (typeof CHAIN_ENGINES)[number];
/**
 * Funded payers per paid row unless --paid-payers says otherwise. 256 on the 2 s chain: the
 * payments service caps what each payer may have been served and not yet settled on chain
 * (ten small reads), a read stays unsettled until it is two blocks deep (about 3 to 4 s), and
 * at 150 reads/s 64 payers would each hold about eight: the row would measure that cap, not
 * the service.
 */
export const DEFAULT_PAID_PAYERS: Record<Cadence, number> = { instant: 8, "100ms": 8, "2s": 256 };
export const ROW_IDS = [
  "ceiling",
  "ceiling-board",
  "ceiling-board-gzip",
  ...HISTORY_ROW_IDS.map((id) => `ceiling-${id}` as const),
  "free",
  "preview",
  "status",
  "name-page",
  "sector-page",
  "audit-page",
  "docs-page",
  "license-board",
  "license-board-gzip",
  ...HISTORY_ROW_IDS,
  "free-key",
  "wallet",
  "license",
  "bearer",
  "mcp",
  "checks",
  "paid-native",
  "paid-native-64",
  "paid-viem",
  "paid-100ms",
  "paid-2s",
  "paid-100ms-block",
  "paid-2s-block",
  "reference",
  "reference-100ms",
  "reference-2s",
  "recovery",
] as const;
export type RowId = (typeof ROW_IDS)[number];

const positive = z.coerce.number().positive();
const count = z.coerce.number().int().positive();

/** The bench's knobs, from its command line (`npm run bench -- --duration 5`). */
export const BenchArgs = z.object({
  /** Seconds each measured row runs for. */
  duration: positive.default(10),
  /** Seconds of warm-up before each free row; paid rows warm up with `paidWarmup` payments. */
  warmup: positive.default(2),
  freeConcurrency: count.default(50),
  paidConcurrency: count.default(16),
  /** Pre-signed payments per paid row; unset: 1.5 × (warm-up rate × duration), so the duration ends the row. */
  paidRequests: count.optional(),
  /** Funded payers per paid row (payments are signed round-robin over them); unset: DEFAULT_PAID_PAYERS of the row's cadence. */
  paidPayers: count.optional(),
  /** Payments spent warming each paid row up. */
  paidWarmup: count.default(96),
  /** Upper bound on the automatic paidRequests (signing is not free). */
  maxPaidRequests: count.default(6000),
  /** Free keys and wallet addresses made for the free-tier rows (25 reads each, round-robin). */
  freePrincipals: count.default(800),
  /** Requests at most in a license or bearer row (one credential, uncapped). */
  maxLicensedRequests: count.default(200_000),
  /** Sequential calls per tier check timed alone. */
  checkCalls: count.default(2000),
  /** Seconds each signature recovery is timed for. */
  recoverySeconds: positive.default(2),
  rows: z
    .string()
    .default(ROW_IDS.join(","))
    .transform((s) => s.split(",").map((r) => r.trim()).filter(Boolean))
    .pipe(z.array(z.enum(ROW_IDS)).min(1)),
  out: z.string().default("bench/results/latest.json"),
  /** A directory: each measured run's main-thread CPU profile is written there (<row>.cpuprofile). */
  cpuProfile: z.string().optional(),
  /** Profile each measured run and split the main thread's CPU by service (the profiler costs a few percent). */
  cpuByService: z.enum(["on", "off"]).default("on"),
  /**
   * processes: each service in its own process, as production runs them (CPU per service from
   * /proc). inproc: every service in this process, on one thread (CPU per service from a profile).
   */
  stack: z.enum(["processes", "inproc"]).default("processes"),
  /**
   * The node of the 2 s rows. anvil (the default) answers JSON-RPC while it mines, as a Base RPC
   * does; EDR stops answering while it mines a block, for longer the more transfers it carries
   * (bench/chain-stall.ts), and a read meeting a block waits the rest of that stall. The other
   * cadences always run on EDR (anvil mines in whole seconds only).
   */
  chain2s: z.enum(CHAIN_ENGINES).default("anvil"),
  /** Also keep this run's JSON as bench/results/history/<startedAt>.json. */
  history: z.enum(["on", "off"]).default("on"),
});
export type BenchArgs = z.infer<typeof BenchArgs>;

const HELP = `npm run bench -- [options]
  --duration <s>           seconds per measured row (10)
  --warmup <s>             warm-up seconds per free row (2)
  --free-concurrency <n>   lanes for free rows and the ceiling (50)
  --paid-concurrency <n>   lanes for paid rows (16)
  --paid-requests <n>      pre-signed payments per paid row (auto: 1.5 x warm-up rate x duration)
  --paid-warmup <n>        payments spent warming up each paid row (96)
  --paid-payers <n>        funded payers per paid row, payments round-robin over them (8; 256 on the 2 s chain)
  --max-paid-requests <n>  cap on the automatic paid-requests (6000)
  --free-principals <n>    free keys / wallet addresses for the free-tier rows, 25 reads each (800)
  --max-licensed-requests <n>  cap on requests of the license and bearer rows (200000)
  --check-calls <n>        sequential calls per tier check timed alone (2000)
  --recovery-seconds <s>   seconds per signature-recovery micro-benchmark (2)
  --rows <list>            comma list of ${ROW_IDS.join(",")} (all)
                           paid-native, paid-native-64, paid-viem and reference run on an automining chain (a block
                           per transaction, at once); paid-100ms / reference-100ms on a block every 100 ms, paid-2s /
                           reference-2s on a block every 2 s (as Base), each stack row beside the reference of its cadence;
                           paid-100ms-block / paid-2s-block: the stack with ANSWER_BEFORE_BLOCK_MAX_PRICE=0, every
                           read waiting for its block (as before reads were answered before it)
  --chain-2s anvil|edr     the node of the 2 s rows (anvil, which answers while it mines, as a Base RPC does; edr
                           stops answering while it mines a block); automine and 100 ms rows always run on EDR
  --out <file>             JSON results (bench/results/latest.json)
  --cpu-profile <dir>      write each measured run's main-thread CPU profile to <dir>/<row>.cpuprofile
  --cpu-by-service on|off  split each row's main-thread CPU by service from a CPU profile (on)
  --stack processes|inproc each service in its own process, as in production (processes), or all in this one (inproc)
  --history on|off         also write bench/results/history/<start time>.json (on)`;

export function parseBenchArgs(argv: string[]): BenchArgs | "help" {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: "string" },
      warmup: { type: "string" },
      "free-concurrency": { type: "string" },
      "paid-concurrency": { type: "string" },
      "paid-requests": { type: "string" },
      "paid-warmup": { type: "string" },
      "paid-payers": { type: "string" },
      "max-paid-requests": { type: "string" },
      "recovery-seconds": { type: "string" },
      "free-principals": { type: "string" },
      "max-licensed-requests": { type: "string" },
      "check-calls": { type: "string" },
      rows: { type: "string" },
      out: { type: "string" },
      "cpu-profile": { type: "string" },
      "cpu-by-service": { type: "string" },
      history: { type: "string" },
      "chain-2s": { type: "string" },
      stack: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) return "help";
  return BenchArgs.parse({
    duration: values.duration,
    warmup: values.warmup,
    freeConcurrency: values["free-concurrency"],
    paidConcurrency: values["paid-concurrency"],
    paidRequests: values["paid-requests"],
    paidWarmup: values["paid-warmup"],
    paidPayers: values["paid-payers"],
    maxPaidRequests: values["max-paid-requests"],
    recoverySeconds: values["recovery-seconds"],
    freePrincipals: values["free-principals"],
    maxLicensedRequests: values["max-licensed-requests"],
    checkCalls: values["check-calls"],
    rows: values.rows,
    out: values.out,
    cpuProfile: values["cpu-profile"],
    cpuByService: values["cpu-by-service"],
    history: values.history,
    chain2s: values["chain-2s"],
    stack: values.stack,
  });
}

export const helpText = HELP;
