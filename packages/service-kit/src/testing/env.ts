/** The test harness's one read of the environment: where the real NATS and Postgres are. */
export const testEnv = {
  natsUrl: process.env.NATS_URL,
  databaseUrl: process.env.DATABASE_URL,
  ci: process.env.CI === "true",
};
