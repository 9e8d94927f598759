import { runMain } from "@board/service-kit";
import { loadEnv } from "./env.js";
import { startPayments } from "./start.js";

runMain(async () => (await startPayments(loadEnv())).runtime);
