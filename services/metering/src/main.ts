import { runMain } from "@board/service-kit";
import { loadEnv } from "./env.js";
import { startMetering } from "./start.js";

runMain(async () => (await startMetering(loadEnv())).runtime);
