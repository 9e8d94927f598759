import {
  BoardState,
  BuylistView,
  CryptoNightView,
  CryptoView,
  IndicesView,
  LeadersView,
  MoversView,
  RegimeView,
  SectorLabel,
  SectorsView,
  TopVolumeView,
  TradfiRiskView,
  type BoardSignals,
  type Book,
  type NameRead,
  type Snapshot,
  type ViewName,
} from "@board/proto";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { publicationOf, readerOf, snapshot } from "./support.js";

const board = snapshot.board;
const signals = snapshot.signals!;
const read = readerOf(publicationOf());
const record = (sym: string) => board.names.find((r) => r.sym === sym)!;

/** A NameRead is the name's record plus its first book and that book's verdict line. */
function expectNameRead(r: NameRead) {
  const { book, regime, ...rest } = r;
  expect(rest).toEqual(record(r.sym));
  expect(book).toBe(record(r.sym).bk[0]);
  const v = board.books[book]!.regime;
  expect(regime).toEqual({ verdict: v.verdict, stance: v.stance, line: v.line });
}

const SIGNAL_VIEWS: ViewName[] = ["top-volume", "leaders", "movers", "crypto", "crypto-night", "tradfi-risk"];

describe("paid views without parameters", () => {
  it("every view starts with the board's head, ends with disclaimer then freshness, and fits its schema", () => {
    const schemas = {
      regime: RegimeView,
      buylist: BuylistView,
      indices: IndicesView,
      sectors: SectorsView,
      "top-volume": TopVolumeView,
      leaders: LeadersView,
      movers: MoversView,
      crypto: CryptoView,
      "crypto-night": CryptoNightView,
      "tradfi-risk": TradfiRiskView,
    } satisfies Partial<Record<ViewName, z.ZodObject>>;
    for (const [view, schema] of Object.entries(schemas)) {
      const { body, meta } = read.json(view as ViewName);
      schema.parse(body);
      const keys = Object.keys(body);
      expect(keys.slice(0, 4), view).toEqual(["product", "asof_daily", "computed_at", "intraday"]);
      expect(keys.slice(-2), view).toEqual(["disclaimer", "freshness"]);
      expect(body.asof_daily).toBe(board.asof_daily);
      expect(body.intraday).toBe(true);
      expect(meta.etag).toMatch(/^W\/"[0-9a-f]{32}"$/);
    }
  });

  it("regime: every book's verdict and permission ladder as published", () => {
    const v = RegimeView.parse(read.json("regime").body);
    expect(Object.keys(v.books)).toEqual(board.book_order);
    for (const code of board.book_order) expect(v.books[code]).toEqual({ title: board.books[code]!.title, regime: board.books[code]!.regime });
  });

  it("buylist and indices: lanes and index cards with each book's verdict line", () => {
    const buylist = BuylistView.parse(read.json("buylist").body);
    const indices = IndicesView.parse(read.json("indices").body);
    for (const code of board.book_order) {
      const b = board.books[code]!;
      const line = { verdict: b.regime.verdict, stance: b.regime.stance, line: b.regime.line };
      expect(buylist.books[code]).toEqual({ regime: line, risk_adjusted: b.lanes.risk_adjusted, swing: b.lanes.swing });
      expect(indices.books[code]).toEqual({ index: b.index_card, regime: line });
    }
  });

  it("sectors: the 20 sector ETF cards best first, green in any book, and each book's green sectors", () => {
    const v = SectorsView.parse(read.json("sectors").body);
    expect(v.sectors.map((c) => c.name).sort()).toEqual([...SectorLabel.options].sort());
    for (const c of v.sectors) {
      expect(c.sym).toBe(snapshot.sector_etfs[c.name]);
      expect(c.label).toBe(c.name);
      expect(c.green).toBe(board.book_order.some((code) => board.books[code]!.regime.ladder.sectors.includes(c.name)));
    }
    const scores = v.sectors.map((c) => c.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const code of board.book_order) expect(v.green_by_book[code]).toEqual(board.books[code]!.regime.ladder.sectors);
  });

  it("top-volume: the engine's selection per sector as plain name records", () => {
    const v = TopVolumeView.parse(read.json("top-volume").body);
    const raw = read.json("top-volume").body as { sectors: Record<string, unknown[]> };
    for (const label of SectorLabel.options) {
      expect(raw.sectors[label]).toEqual((signals.top_volume[label] ?? []).map(record));
      expect(v.sectors[label].map((r) => r.sym)).toEqual(signals.top_volume[label]);
    }
  });

  it("leaders, movers and tradfi-risk: the engine's selections joined with the full name read", () => {
    const leaders = LeadersView.parse(read.json("leaders").body);
    for (const code of board.book_order) {
      expect(leaders.books[code].map((r) => r.sym)).toEqual(signals.leaders[code]);
      leaders.books[code].forEach(expectNameRead);
    }
    const movers = MoversView.parse(read.json("movers").body);
    expect(movers.gainers.map((r) => r.sym)).toEqual(signals.movers.gainers);
    expect(movers.losers.map((r) => r.sym)).toEqual(signals.movers.losers);
    [...movers.gainers, ...movers.losers].forEach(expectNameRead);
    const tradfi = TradfiRiskView.parse(read.json("tradfi-risk").body);
    expect(tradfi.tradfi).toEqual(signals.tradfi_risk);
    expect(tradfi.members.map((r) => r.sym)).toEqual([...new Set(signals.tradfi_risk.groups.flatMap((g) => g.syms))]);
    tradfi.members.forEach(expectNameRead);
  });

  it("crypto and crypto-night: the signals as the engine published them", () => {
    expect(CryptoView.parse(read.json("crypto").body).crypto).toEqual(signals.crypto);
    expect(CryptoNightView.parse(read.json("crypto-night").body).night).toEqual(signals.crypto_night);
  });

  it("state lists a hash for every view, the parametrised ones included", () => {
    const state = BoardState.parse(read.json("state").body);
    const pub = publicationOf();
    for (const [view, v] of pub.views) if (view !== "state") expect(state.views[view], view).toBe(v.rendered.hash.slice(0, 32));
    for (const view of ["name", "hold", "sector"] as const) expect(state.views[view], view).toBe(pub.lookups.get(view)!.lookup.hash.slice(0, 32));
  });
});

describe("publication inputs", () => {
  it("without signals the views made from them are not rendered and answer not_implemented", () => {
    const { signals: _, ...bare } = snapshot;
    const r = readerOf(publicationOf(bare as Snapshot));
    for (const view of SIGNAL_VIEWS) expect(() => r.raw(view), view).toThrow(expect.objectContaining({ status: 501, code: "not_implemented" }));
    for (const view of ["regime", "buylist", "indices", "sectors", "symbols"] as const) expect(r.raw(view).meta.status).toBe(200);
    const state = BoardState.parse(r.json("state").body);
    for (const view of SIGNAL_VIEWS) expect(state.views[view]).toBeUndefined();
  });

  it("without the snapshot's sector ETFs and signals (a bare board) the sector reads come from the books' cards", () => {
    const pub = publicationOf(snapshot, { snapshot: undefined });
    const r = readerOf(pub);
    expect(SectorsView.parse(r.json("sectors").body).sectors).toHaveLength(20);
    expect(r.json("sector", { etf: snapshot.sector_etfs.Semis }).body.sector).toBe("Semis");
    expect(pub.views.has("leaders")).toBe(false);
  });

  it("refuses books that score a sector ETF differently, or a card that is not the snapshot's sector ETF", () => {
    const withCard = (code: string, patch: (b: Book) => Book): Snapshot => ({
      ...snapshot,
      board: { ...board, books: { ...board.books, [code]: patch(board.books[code as "qqq"]!) } as Snapshot["board"]["books"] },
    });
    const rescored = withCard("qqq", (b) => ({ ...b, sector_cards: b.sector_cards.map((c) => (c.label === "Energy" ? { ...c, score: c.score === 1 ? 2 : 1 } : c)) }));
    expect(() => publicationOf(rescored)).toThrow(/Energy card disagrees .* score/);
    const greener = withCard("qqq", (b) => ({ ...b, sector_cards: b.sector_cards.map((c) => ({ ...c, green: !c.green })) }));
    expect(() => publicationOf(greener)).not.toThrow(); // green is the book's ladder, not the ETF's score
    expect(() => publicationOf({ ...snapshot, sector_etfs: { ...snapshot.sector_etfs, Energy: "XLE" } })).toThrow(/Energy card is .* sector ETF is XLE/);
  });

  it("refuses signals that name a symbol the board does not carry", () => {
    const bad: BoardSignals = { ...signals, movers: { ...signals.movers, gainers: ["NOPE"] } };
    expect(() => publicationOf({ ...snapshot, signals: bad })).toThrow(/signals.movers.gainers names NOPE/);
  });

  it("renders extra views, checks them against their schema and lists them in state", () => {
    const Extra = z.object({ product: z.literal("x"), n: z.number(), freshness: z.object({ market_open: z.boolean() }) });
    const pub = publicationOf(snapshot, { extraViews: [{ view: "proof", board, content: { product: "x", n: 1 }, schema: Extra }] });
    const r = readerOf(pub);
    expect(r.json("proof").body).toMatchObject({ product: "x", n: 1 });
    expect(BoardState.parse(r.json("state").body).views.proof).toBe(pub.views.get("proof")!.rendered.hash.slice(0, 32));
    expect(() => publicationOf(snapshot, { extraViews: [{ view: "proof", board, content: { product: "y", n: 1 }, schema: Extra }] })).toThrow();
  });
});
