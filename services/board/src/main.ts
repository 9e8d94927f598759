import { runMain } from "@board/service-kit";
import { loadEnv } from "./env.js";
import { startBoard } from "./start.js";

runMain(async () => (await startBoard(loadEnv())).runtime);
