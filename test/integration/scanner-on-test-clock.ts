// The scanner-ingest service as a process of its own on a test clock (test-clock.ts, from its
// arguments), configured as services/scanner-ingest/src/main.ts is (its env.ts):
// a scan blocks its process's event loop for seconds, which must not stall the other services
// a test runs in its own process, and a process can be killed.
// Run: node --import tsx test/integration/scanner-on-test-clock.ts <anchor> <speed> <t0> (with the scanner's env).
import { loadEnv } from "../../services/scanner-ingest/src/env.js";
import { startScanner } from "../../services/scanner-ingest/src/start.js";
import { AcceleratedClock } from "./test-clock.js";

const clock = AcceleratedClock.fromArgs(process.argv.slice(2));
const scanner = await startScanner(loadEnv(), { clock });
const stop = () => void scanner.stop().finally(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
