import { runMain } from "@board/service-kit";
import { loadEnv } from "./env.js";
import { startScanner } from "./start.js";

runMain(async () => (await startScanner(loadEnv())).runtime);
