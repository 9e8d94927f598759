import { BoardStatus } from "@board/proto";
import { describe, expect, it } from "vitest";
import { PAYMENTS_PENDING } from "../../src/views/status.js";
import { publicationOf, readerOf } from "./support.js";

describe("status view", () => {
  it("carries a payments block, null with its reason in pending until payments reports its mode and rails", () => {
    const { body } = readerOf(publicationOf()).json("status");
    const status = BoardStatus.parse(body);
    expect(status.payments).toBeNull();
    expect(status.pending["payments"]).toBe(PAYMENTS_PENDING);
    // SPEC.md's fields are unchanged beside it.
    for (const field of ["reads_served", "last_settlement_at", "performance", "freshness"]) expect(body).toHaveProperty(field);
  });

  it("takes a development payments block with every rail", () => {
    const payments = { mode: "development", rails: { base: "live", solana: "live", algorand: "down", batched: "live", mpp: "off" } } as const;
    const { body } = readerOf(publicationOf()).json("status");
    expect(BoardStatus.parse({ ...body, payments }).payments).toEqual(payments);
    expect(BoardStatus.safeParse({ ...body, payments: { ...payments, mode: "test" } }).success).toBe(false);
    expect(BoardStatus.safeParse({ ...body, payments: { ...payments, rails: { ...payments.rails, mpp: "maybe" } } }).success).toBe(false);
  });
});
