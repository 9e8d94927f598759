import type { IncomingMessage } from "node:http";
import { isIPv4, isIPv6 } from "node:net";
import { CLIENT_ADDRESS_IPV6_PREFIX } from "@board/proto";

/**
 * The client address every per-address limit counts (the anonymous burst, event stream and
 * MCP session caps): an IPv4 address as it is, an IPv6 address as its /64. One host is
 * commonly given a whole /64, so counting full IPv6 addresses would let one host be as many
 * clients as it likes. An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is its IPv4 address.
 */
export function clientAddress(ip: string | undefined): string {
  if (!ip) return "unknown";
  const bare = ip.replace(/%.*$/, ""); // a zone id names the interface, not the host
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped?.[1] && isIPv4(mapped[1])) return mapped[1];
  if (!isIPv6(bare)) return bare;
  const groups = expandIPv6(bare).slice(0, CLIENT_ADDRESS_IPV6_PREFIX / 16);
  return `${groups.join(":")}::/${CLIENT_ADDRESS_IPV6_PREFIX}`;
}

/** The eight 16-bit groups of a valid IPv6 address, lower-case, without leading zeros. */
function expandIPv6(ip: string): string[] {
  let text = ip.toLowerCase();
  // A trailing dotted quad is the last two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail === undefined ? [] : tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((g) => parseInt(g, 16).toString(16));
}

/** The request's client address as the limits count it (express's req.ip, after "trust proxy"). */
export const clientOf = (req: { ip?: string | undefined }): string => clientAddress(req.ip);

/**
 * What express's req.ip is under "trust proxy" set to `hops`, from node's own request (express's
 * prototypes cost every later access to the request: exchange.ts): the socket's address and the
 * X-Forwarded-For entries, nearest first, and the one `hops` away (or the farthest there is).
 * As proxy-addr and forwarded (express's) read them; held to express's own answer in the tests.
 */
export function forwardedAddress(req: IncomingMessage, hops: number): string | undefined {
  const addrs: (string | undefined)[] = [req.socket.remoteAddress];
  const header = req.headers["x-forwarded-for"];
  if (hops > 0 && typeof header === "string") {
    // Backwards over the list, spaces around an entry skipped, as forwarded parses it.
    let end = header.length;
    let start = header.length;
    for (let i = header.length - 1; i >= 0; i--) {
      const c = header.charCodeAt(i);
      if (c === 0x20) {
        if (start === end) start = end = i;
      } else if (c === 0x2c) {
        if (start !== end) addrs.push(header.substring(start, end));
        start = end = i;
      } else start = i;
      if (addrs.length > hops) break;
    }
    if (addrs.length <= hops && start !== end) addrs.push(header.substring(start, end));
  }
  return addrs[Math.min(hops, addrs.length - 1)];
}
