import { PRODUCT, type BoardContent, type BookCode, type NameRead, type NameRecord, type VerdictLine } from "@board/proto";

/** The fields every board read starts with: which board it was cut from. */
export interface ReadHead {
  product: typeof PRODUCT;
  asof_daily: string;
  computed_at: string;
  intraday: boolean;
}

export function readHead(board: BoardContent): ReadHead {
  return { product: PRODUCT, asof_daily: board.asof_daily, computed_at: board.computed_at, intraday: board.intraday };
}

/** A book's verdict in one line. */
export function verdictLine(board: BoardContent, code: BookCode): VerdictLine {
  const regime = board.books[code]?.regime;
  if (!regime) throw new Error(`snapshot has no book ${code}`);
  return { verdict: regime.verdict, stance: regime.stance, line: regime.line };
}

/** Every name's full read, by symbol: its record plus its first book and that book's verdict. */
export class NameReads {
  readonly bySym: ReadonlyMap<string, NameRead>;
  private readonly records: ReadonlyMap<string, NameRecord>;

  constructor(board: BoardContent) {
    const lines = new Map<BookCode, VerdictLine>();
    const line = (code: BookCode) => {
      let l = lines.get(code);
      if (!l) lines.set(code, (l = verdictLine(board, code)));
      return l;
    };
    this.bySym = new Map(board.names.map((r) => [r.sym, nameRead(r, line)]));
    this.records = new Map(board.names.map((r) => [r.sym, r]));
  }

  /** The record of a symbol an engine selection names; the board must carry it. */
  record(sym: string, where: string): NameRecord {
    const record = this.records.get(sym);
    if (!record) throw missing(sym, where);
    return record;
  }

  /** The read of a symbol an engine selection names; the board must carry it. */
  of(sym: string, where: string): NameRead {
    const read = this.bySym.get(sym);
    if (!read) throw missing(sym, where);
    return read;
  }

  all(syms: readonly string[], where: string): NameRead[] {
    return syms.map((s) => this.of(s, where));
  }
}

const missing = (sym: string, where: string) => new Error(`${where} names ${sym}, which the board does not carry`);

function nameRead(r: NameRecord, line: (code: BookCode) => VerdictLine): NameRead {
  const book = r.bk[0];
  if (!book) throw new Error(`name ${r.sym} belongs to no book`);
  return { ...r, book, regime: line(book) };
}

/** Highest opportunity first; the symbol breaks ties so the order is stable. */
export const byOpportunity = (a: NameRecord, b: NameRecord) => b.opp_score - a.opp_score || (a.sym < b.sym ? -1 : a.sym > b.sym ? 1 : 0);
