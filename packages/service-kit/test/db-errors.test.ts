import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable, isQueryReadTimeout } from "../src/db-errors.js";

const err = (message: string, props: Record<string, unknown> = {}) => Object.assign(new Error(message), props);

describe("isDatabaseUnavailable", () => {
  it("knows a database that cannot be reached or was lost", () => {
    expect(isDatabaseUnavailable(err("connect ECONNREFUSED 127.0.0.1:5432", { code: "ECONNREFUSED" }))).toBe(true);
    expect(isDatabaseUnavailable(err("read ECONNRESET", { code: "ECONNRESET" }))).toBe(true);
    expect(isDatabaseUnavailable(err("Connection terminated unexpectedly"))).toBe(true);
    expect(isDatabaseUnavailable(err("timeout exceeded when trying to connect"))).toBe(true);
    expect(isDatabaseUnavailable(err("the database system is shutting down", { code: "57P03" }))).toBe(true);
    expect(isDatabaseUnavailable(err("connection failure", { code: "08006" }))).toBe(true);
    expect(isDatabaseUnavailable(err("sorry, too many clients already", { code: "53300" }))).toBe(true);
  });
  it("knows the bounds of db.ts: a statement cancelled by statement_timeout, a session ended idle in a transaction, a query pg gave up on", () => {
    expect(isDatabaseUnavailable(err("canceling statement due to statement timeout", { code: "57014" }))).toBe(true);
    expect(isDatabaseUnavailable(err("terminating connection due to idle-in-transaction timeout", { code: "25P03" }))).toBe(true);
    expect(isDatabaseUnavailable(err("Failed query: insert", { cause: err("Query read timeout") }))).toBe(true);
    expect(isDatabaseUnavailable(err("Connection terminated due to connection timeout"))).toBe(true);
  });
  it("tells pg's read timeout from other failures", () => {
    expect(isQueryReadTimeout(err("Query read timeout"))).toBe(true);
    expect(isQueryReadTimeout(err("canceling statement due to statement timeout", { code: "57014" }))).toBe(false);
    expect(isQueryReadTimeout(err("Connection terminated unexpectedly"))).toBe(false);
    expect(isQueryReadTimeout("Query read timeout")).toBe(false);
  });
  it("looks through drizzle's wrapper to the driver's error", () => {
    expect(isDatabaseUnavailable(err("Failed query: select 1", { cause: err("Connection terminated unexpectedly") }))).toBe(true);
  });
  it("leaves a query that failed on a reachable database alone", () => {
    expect(isDatabaseUnavailable(err("duplicate key value violates unique constraint", { code: "23505" }))).toBe(false);
    expect(isDatabaseUnavailable(err("Failed query: insert", { cause: err("syntax error", { code: "42601" }) }))).toBe(false);
    expect(isDatabaseUnavailable(err("boom"))).toBe(false);
    // A lock not granted at once (NOWAIT, lock_timeout) is a conflict of the query, not an absent database.
    expect(isDatabaseUnavailable(err("could not obtain lock on row", { code: "55P03" }))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});
