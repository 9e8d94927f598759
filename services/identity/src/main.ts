import { runMain } from "@board/service-kit";
import { loadEnv } from "./env.js";
import { startIdentity } from "./start.js";

runMain(async () => (await startIdentity(loadEnv())).runtime);
