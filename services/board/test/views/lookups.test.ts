import { gunzipSync } from "node:zlib";
import { HoldView, NameDirectoryView, NameView, SectorDirectoryView, SectorLabel, SectorView, SymbolDirectory } from "@board/proto";
import { fixtureSnapshot } from "@board/service-kit/testing";
import { describe, expect, it } from "vitest";
import { publicationOf, readerOf, snapshot } from "./support.js";

const board = snapshot.board;
const read = readerOf(publicationOf());
const syms = board.names.map((r) => r.sym);
const record = (sym: string) => board.names.find((r) => r.sym === sym)!;
const withoutFreshness = (b: Record<string, unknown>) => {
  const { freshness: _, ...rest } = b;
  return rest;
};

describe("name", () => {
  it("answers one symbol's full read", () => {
    const v = NameView.parse(read.json("name", { sym: "TC0" }).body);
    expect(v.names).toHaveLength(1);
    const { book, regime, ...rest } = v.names[0]!;
    expect(rest).toEqual(record("TC0"));
    expect(book).toBe(record("TC0").bk[0]);
    expect(regime.verdict).toBe(board.books[book]!.regime.verdict);
    expect(v.unknown).toEqual([]);
    expect(Object.keys(read.json("name", { sym: "TC0" }).body)).toEqual(["product", "asof_daily", "computed_at", "intraday", "names", "unknown", "disclaimer", "freshness"]);
  });

  it("a 10-symbol batch is the single reads joined, in request order", () => {
    const ten = [...syms].reverse().slice(0, 10);
    const { text } = read.text("name", { sym: ten.join(",") });
    const batch = NameView.parse(JSON.parse(text));
    const singles = ten.map((s) => NameView.parse(read.json("name", { sym: s }).body).names[0]);
    expect(batch.names).toEqual(singles);
    expect(withoutFreshness(JSON.parse(text) as Record<string, unknown>)).toEqual({
      product: "scored-market-board",
      asof_daily: board.asof_daily,
      computed_at: board.computed_at,
      intraday: board.intraday,
      names: singles,
      unknown: [],
      disclaimer: board.disclaimer,
    });
  });

  it("lists unknown symbols in request order, once each, and answers each known symbol once", () => {
    const v = NameView.parse(read.json("name", { sym: "NOPE,TD0,BTC-USD,ZZZ,TD0,NOPE,TC0" }).body);
    expect(v.names.map((r) => r.sym)).toEqual(["TD0", "BTC-USD", "TC0"]);
    expect(v.unknown).toEqual(["NOPE", "ZZZ"]);
  });

  it("takes symbols in any case and with spaces when a caller on the bus sends them so", () => {
    const v = NameView.parse(read.json("name", { sym: " td0 ,btc-usd" }).body);
    expect(v.names.map((r) => r.sym)).toEqual(["TD0", "BTC-USD"]);
  });

  it("answers the symbol directory plus unknown, in a 200, when every symbol is unknown or none is given", () => {
    const symbols = SymbolDirectory.parse(read.json("symbols").body);
    for (const [params, unknown] of [
      [{ sym: "NOPE" }, ["NOPE"]],
      [{ sym: "NOPE,ZZZ,NOPE" }, ["NOPE", "ZZZ"]],
      [{}, []],
    ] as const) {
      const { body, meta } = read.json("name", params);
      expect(meta.status).toBe(200);
      const dir = NameDirectoryView.parse(body);
      expect(dir.unknown).toEqual(unknown);
      expect(withoutFreshness(body)).toEqual({ ...withoutFreshness(symbols), unknown });
    }
  });

  it("refuses more than ten symbols", () => {
    const eleven = syms.slice(0, 11).join(",");
    expect(() => read.raw("name", { sym: eleven })).toThrow(expect.objectContaining({ status: 400, code: "invalid_request", param: "sym" }));
  });

  it("gives each distinct answer its own weak ETag and answers 304 to a matching one", () => {
    const etag = (sym: string) => read.raw("name", { sym }).meta.etag;
    expect(etag("TC0,TD0")).toMatch(/^W\/"[0-9a-f]{32}"$/);
    expect(etag("TC0,TD0")).toBe(etag("TC0,TD0"));
    expect(etag("TC0,TD0,TC0")).toBe(etag("TC0,TD0"));
    const distinct = new Set([etag("TC0,TD0"), etag("TD0,TC0"), etag("TC0"), etag("TC0,TD0,NOPE"), etag("NOPE"), etag("ZZZ"), read.raw("hold", { sym: "TC0,TD0" }).meta.etag]);
    expect(distinct.size).toBe(7);
    const again = read.raw("name", { sym: "TC0,TD0" }, { if_none_match: etag("TC0,TD0") });
    expect(again.meta.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(read.raw("name", { sym: "NOPE" }, { if_none_match: etag("NOPE") }).meta.status).toBe(304);
    const other = readerOf(publicationOf(fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T10:00:00-08:00", seed: 2, intraday: true })));
    expect(other.raw("name", { sym: "TC0,TD0" }).meta.etag).not.toBe(etag("TC0,TD0")); // same names, a later board
  });

  it("serves gzip that decompresses to the identity body, for batches and for the directory", () => {
    for (const sym of [syms.slice(0, 10).join(","), "TC0", "NOPE,ZZZ"]) {
      const plain = read.raw("name", { sym });
      const zipped = read.raw("name", { sym }, { encoding: "gzip" });
      expect(gunzipSync(zipped.body).toString()).toBe(Buffer.from(plain.body).toString());
      expect(zipped.meta.encoding).toBe("gzip");
    }
    const big = read.raw("name", { sym: "NOPE" }, { encoding: "gzip" });
    expect(big.body.length).toBeLessThan(read.raw("name", { sym: "NOPE" }).body.length / 2);
  });
});

describe("hold", () => {
  it("answers hold strength, label and state for one to ten symbols, same rules as name", () => {
    const v = HoldView.parse(read.json("hold", { sym: "TE0,NOPE,BTC-USD,TE0" }).body);
    expect(v.names).toEqual(
      ["TE0", "BTC-USD"].map((s) => {
        const r = record(s);
        return { sym: r.sym, name: r.name, price: r.price, hold_q: r.hold_q, hold_label: r.hold_label, state: r.state };
      }),
    );
    expect(v.unknown).toEqual(["NOPE"]);
    const ten = syms.slice(5, 15);
    expect(HoldView.parse(read.json("hold", { sym: ten.join(",") }).body).names.map((e) => e.sym)).toEqual(ten);
  });

  it("answers the symbol directory when every symbol is unknown", () => {
    const dir = NameDirectoryView.parse(read.json("hold", { sym: "NOPE,ZZZ" }).body);
    expect(dir.unknown).toEqual(["NOPE", "ZZZ"]);
    expect(dir.symbols).toHaveLength(board.names.length);
  });
});

describe("sector", () => {
  const semis = snapshot.sector_etfs.Semis;

  it("answers every sector by label, in any case, with its members ranked by opportunity and its ETF card", () => {
    for (const label of SectorLabel.options) {
      const v = SectorView.parse(read.json("sector", { name: label.toUpperCase() }).body);
      expect(v.sector).toBe(label);
      expect(v.etf.sym).toBe(snapshot.sector_etfs[label]);
      const members = board.names.filter((r) => r.sector === label);
      expect(v.members.map((r) => r.sym).sort()).toEqual(members.map((r) => r.sym).sort());
      const scores = v.members.map((r) => r.opp_score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      for (const m of v.members) expect(m.book).toBe(record(m.sym).bk[0]);
    }
  });

  it("answers the same bytes by label in any case, by ETF symbol, or by both when they agree", () => {
    const want = read.text("sector", { name: "Semis" }).text;
    const asked: Record<string, string>[] = [{ name: "semis" }, { name: " SEMIS " }, { etf: semis }, { etf: semis.toLowerCase() }, { name: "semis", etf: semis }];
    for (const params of asked)
      expect(read.text("sector", params).text, JSON.stringify(params)).toBe(want);
    expect(read.raw("sector", { etf: semis }).meta.etag).toBe(read.raw("sector", { name: "Semis" }).meta.etag);
  });

  it("answers the sector directory, in a 200, for an unknown value, a conflict, or no parameter", () => {
    for (const [params, unknown] of [
      [{ name: "Nope" }, { name: "Nope" }],
      [{ etf: "ZZZ" }, { etf: "ZZZ" }],
      [{ name: "Semis", etf: "ZZZ" }, { etf: "ZZZ" }],
      [{ name: "Semis", etf: snapshot.sector_etfs.Energy }, { name: "Semis", etf: snapshot.sector_etfs.Energy }],
      [{}, {}],
    ] as const) {
      const { body, meta } = read.json("sector", params);
      expect(meta.status).toBe(200);
      const dir = SectorDirectoryView.parse(body);
      expect(dir.unknown, JSON.stringify(params)).toEqual(unknown);
      expect(dir.sectors.map((s) => s.name)).toEqual([...SectorLabel.options]);
      for (const s of dir.sectors) {
        expect(s.etf).toBe(snapshot.sector_etfs[s.name]);
        expect(s.members).toBe(board.names.filter((r) => r.sector === s.name).length);
      }
    }
    expect(read.raw("sector", { name: "Nope" }).meta.etag).not.toBe(read.raw("sector", { name: "Nah" }).meta.etag);
  });
});
