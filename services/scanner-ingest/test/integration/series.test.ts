import { NameSeries, SERIES_STREAM, seriesSubject } from "@board/proto";
import { ensureBusStreams } from "@board/service-kit";
import { busEnv, deleteSnapshotStream, readSnapshotStream, testBusOptions } from "@board/service-kit/testing";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ScannerEnv } from "../../src/env.js";
import { startScanner } from "../../src/start.js";
import { fixedClock } from "../support/clocks.js";

let nc: NatsConnection;
const env = ScannerEnv.parse({ ...busEnv("scanner-ingest"), HEALTH_PORT: 0, LOG_LEVEL: "warn" });

beforeAll(async () => {
  nc = await connect(testBusOptions());
  await deleteSnapshotStream(nc);
  await ensureBusStreams(nc);
});
afterAll(() => nc.close());

it("publishes each closing board's series, on its own credential: one message per name, the board's close last", async () => {
  // A Saturday: the previous close (2026-11-19) and the weekend board (2026-11-20), neither intraday.
  const scanner = await startScanner(env, { clock: fixedClock(new Date("2026-11-21T18:00:00Z")) });
  await scanner.ready;
  await scanner.stop();
  const jsm = await nc.jetstreamManager();
  for (const s of await readSnapshotStream(nc)) {
    // Equities: a crypto name's last daily bar is the last closed UTC day, not the board's session.
    const equities = s.board.names.filter((n) => !n.bk.includes("crypto"));
    for (const name of [equities[0]!, equities.at(-1)!]) {
      const m = await jsm.streams.getMessage(SERIES_STREAM, { last_by_subj: seriesSubject(s.board.asof_daily, name.sym) });
      const series = NameSeries.parse(JSON.parse(new TextDecoder().decode(m.data)));
      expect(series).toMatchObject({ sym: name.sym, asof_daily: s.board.asof_daily, computed_at: s.board.computed_at });
      expect(series.dates.at(-1)).toBe(s.board.asof_daily);
      expect(series.close.at(-1)).toBeCloseTo(name.price, 2);
      expect(series.dates).toHaveLength(252);
    }
  }
});
