import { identityLicenseIssue, type LicenseIssueReply } from "@board/proto";
import { request } from "@board/service-kit";
import { afterAll, beforeAll } from "vitest";
import { Stack } from "./harness.js";

/**
 * The stack the OAuth tests share, started before and stopped after the calling file: every
 * service, two days' boards, metering's burst limit out of the way of the many requests, and
 * identity on a clock that runs ahead of the wall clock when a test says so (token expiry,
 * rotation, paid periods). `issue` hands out a licence, its key the client credentials' secret.
 */
export function oauthStack(opts: { holder: string; live?: boolean }): {
  stack: Stack;
  clock: { offsetMs: number };
  issue: (kind: "scanner" | "live_feed", period?: "monthly" | "yearly") => Promise<LicenseIssueReply>;
} {
  const clock = { offsetMs: 0 };
  const stack = new Stack();

  beforeAll(async () => {
    await stack.start({ now: () => new Date(Date.now() + clock.offsetMs), metering: { BURST_CAPACITY: "100000", BURST_PER_SECOND: "100000" } });
    await stack.startBoard();
    await stack.publishTwoDays({ live: opts.live ?? false });
    await stack.startPayments();
    await stack.untilServing();
  }, 60_000);

  afterAll(() => stack.stop());

  const issue = (kind: "scanner" | "live_feed", period: "monthly" | "yearly" = "monthly"): Promise<LicenseIssueReply> =>
    request(stack.nc, identityLicenseIssue, { kind, period, holder: opts.holder }, { timeoutMs: 5000 });

  return { stack, clock, issue };
}
