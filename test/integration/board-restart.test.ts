import { FreeBoard, FullBoard, ErrorBody } from "@board/proto";
import { fixtureSnapshot } from "@board/service-kit/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Stack, until } from "./harness.js";

const stack = new Stack();
beforeAll(async () => {
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await until(() => stack.board!.publication()?.board.asof_daily === "2026-11-20" && stack.board!.publication()!.views.has("free"));
});
afterAll(() => stack.stop());

it("keeps answering while the board restarts: 503 while it is away, never a wrong body, no snapshot lost", async () => {
  const seen = { ok: 0, unavailable: 0, other: [] as number[] };
  let reading = true;
  const asofs = new Set<string>();
  const reader = (async () => {
    while (reading) {
      const res = await fetch(`${stack.base}/api/board/agent?preview=1`);
      if (res.status === 200) {
        FullBoard.parse(await res.json()); // a 200 is always a whole, valid board
        seen.ok++;
      } else if (res.status === 503) {
        expect(ErrorBody.parse(await res.json()).error.code).toBe("service_unavailable");
        seen.unavailable++;
      } else seen.other.push(res.status);
      const full = await fetch(`${stack.base}/api/board/free`);
      if (full.status === 200) asofs.add(FreeBoard.parse(await full.json()).asof_daily);
    }
  })();

  await until(() => seen.ok > 20);
  await stack.stopBoard();
  await until(() => seen.unavailable > 5);
  // Published while no board runs: it must not be lost.
  await stack.publish(fixtureSnapshot({ asofDaily: "2026-11-23", computedAt: "2026-11-23T07:00:00-08:00", seed: 3 }));
  const before = seen.ok;
  await stack.startBoard();
  await until(() => seen.ok > before + 20);
  await until(() => asofs.has("2026-11-20")); // the new day's free read is the previous day
  reading = false;
  await reader;

  expect(seen.other).toEqual([]);
  expect(seen.unavailable).toBeGreaterThan(0);
  expect(await stack.board!.store.count()).toBe(3);
  expect(stack.board!.publication()!.board.asof_daily).toBe("2026-11-23");
});
