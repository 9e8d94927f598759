import net from "node:net";

/** One connection through the proxy: what it holds while frozen, and how each end went. */
interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  /** Bytes in flight while frozen, in order, each with its direction. */
  held: { toUpstream: boolean; chunk: Buffer }[];
  /** An end (FIN) sent while frozen: delivered after the held bytes once restored. */
  clientEnded: boolean;
  upstreamEnded: boolean;
  /** The client reset its connection while frozen: its kernel dropped what it had not delivered. */
  clientReset: boolean;
}

/**
 * A TCP proxy in front of Postgres, for fault tests.
 *
 * `cut` resets every open connection and then refuses new ones (reset at once) or holds them
 * (accepted, never answered: a black hole); `restore` opens it again.
 *
 * `freeze` (or `freezeOn`, when a client sends given bytes: a statement's text) is a silent
 * partition of established connections too: from then on no byte crosses in either direction
 * and nothing is reset; new connections are held. `restore` heals it as a network does: what
 * was in flight on a connection both ends still hold is delivered, in order (an end sent
 * meanwhile after it), while a connection its client reset meanwhile is dropped with what it
 * held, never delivered. The server learns of that reset only once restored, as it would.
 */
export class TcpProxy {
  private readonly server = net.createServer((s) => this.accept(s));
  private readonly pairs = new Set<Pair>();
  private readonly held = new Set<net.Socket>();
  mode: "open" | "refuse" | "hold" = "open";
  private frozen = false;
  private trigger: Buffer | null = null;
  refused = 0;
  heldCount = 0;
  /** Connections reset by their client while frozen (since the last freeze). */
  resetWhileFrozen = 0;
  port = 0;
  /** Resolves when a `freezeOn` trigger has fired. */
  private onFrozen: (() => void) | null = null;
  constructor(private readonly target: { host: string; port: number }) {}

  /** `url` (a Postgres URL) with its host and port replaced by this proxy's: the services reach the database through it. */
  urlThrough(url: string): string {
    const u = new URL(url);
    u.hostname = "127.0.0.1";
    u.port = String(this.port);
    return u.toString();
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  private accept(client: net.Socket) {
    client.on("error", () => undefined);
    if (this.mode === "refuse") {
      this.refused++;
      client.resetAndDestroy();
      return;
    }
    if (this.mode === "hold" || this.frozen) {
      this.heldCount++;
      this.held.add(client);
      client.once("close", () => this.held.delete(client));
      return;
    }
    const upstream = net.connect(this.target);
    upstream.on("error", () => undefined);
    const pair: Pair = { client, upstream, held: [], clientEnded: false, upstreamEnded: false, clientReset: false };
    this.pairs.add(pair);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      this.pairs.delete(pair);
    };
    client.on("data", (chunk: Buffer) => {
      if (!this.frozen && this.trigger && chunk.includes(this.trigger)) this.freeze();
      if (this.frozen) pair.held.push({ toUpstream: true, chunk });
      else upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (this.frozen) pair.held.push({ toUpstream: false, chunk });
      else client.write(chunk);
    });
    client.once("end", () => {
      if (this.frozen) pair.clientEnded = true;
      else upstream.end();
    });
    upstream.once("end", () => {
      if (this.frozen) pair.upstreamEnded = true;
      else client.end();
    });
    client.once("close", (hadError) => {
      if (!this.frozen) return drop();
      if (hadError || !pair.clientEnded) {
        // A reset (or a close without an end): nothing it held leaves the client's side.
        pair.clientReset = true;
        pair.held = pair.held.filter((h) => !h.toUpstream);
        this.resetWhileFrozen++;
      }
    });
    upstream.once("close", () => {
      if (!this.frozen) drop();
      else pair.upstreamEnded = true;
    });
  }

  /** Open connections through the proxy right now. */
  get open() {
    return this.pairs.size;
  }

  /** Cuts Postgres off; returns how many open connections were reset. */
  cut(mode: "refuse" | "hold"): number {
    this.mode = mode;
    this.refused = 0;
    this.heldCount = 0;
    const n = this.pairs.size;
    for (const p of [...this.pairs]) {
      p.client.resetAndDestroy();
      p.upstream.destroy();
    }
    return n;
  }

  /** A silent partition from now on (see the class). */
  freeze(): void {
    this.trigger = null;
    if (this.frozen) return;
    this.frozen = true;
    this.heldCount = 0;
    this.resetWhileFrozen = 0;
    this.onFrozen?.();
    this.onFrozen = null;
  }

  /** Freezes as soon as a client sends `bytes` (they are held, never delivered before `restore`); resolves then. */
  freezeOn(bytes: string): Promise<void> {
    this.trigger = Buffer.from(bytes);
    return new Promise<void>((resolve) => (this.onFrozen = resolve));
  }

  restore() {
    this.mode = "open";
    this.trigger = null;
    this.onFrozen = null;
    for (const s of this.held) s.resetAndDestroy();
    this.held.clear();
    if (!this.frozen) return;
    this.frozen = false;
    for (const p of [...this.pairs]) {
      if (p.clientReset) {
        p.upstream.destroy();
        p.client.destroy();
        this.pairs.delete(p);
        continue;
      }
      for (const h of p.held) (h.toUpstream ? p.upstream : p.client).write(h.chunk);
      p.held = [];
      if (p.clientEnded) p.upstream.end();
      if (p.upstreamEnded) p.client.end();
    }
  }

  async close() {
    this.cut("refuse");
    this.restore();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
