import { runMain } from "@board/service-kit";
import { loadEnv } from "./env.js";
import { startGateway } from "./start.js";

runMain(async () => (await startGateway(loadEnv())).runtime);
