/** What the integration tests read from the environment (beyond the infrastructure's NATS_URL and DATABASE_URL). */

/** 1: output-examples.test.ts rewrites the committed examples from the board it serves, instead of only comparing. */
export const WRITE_OUTPUT_EXAMPLES = process.env["WRITE_OUTPUT_EXAMPLES"] === "1";
