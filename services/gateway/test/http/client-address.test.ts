import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { describe, expect, it } from "vitest";
import { StreamCaps } from "../../src/events/caps.js";
import { clientAddress, forwardedAddress } from "../../src/http/client-address.js";

describe("clientAddress: what per-address limits count", () => {
  it("an IPv4 address is itself; an IPv4-mapped IPv6 address is its IPv4 address", () => {
    expect(clientAddress("203.0.113.7")).toBe("203.0.113.7");
    expect(clientAddress("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientAddress(undefined)).toBe("unknown");
  });

  it("an IPv6 address is its /64, whatever its spelling", () => {
    const one = clientAddress("2001:db8:1:2::1");
    expect(one).toBe("2001:db8:1:2::/64");
    for (const same of ["2001:0db8:0001:0002:ffff:ffff:ffff:ffff", "2001:DB8:1:2:a::b", "2001:db8:1:2::1%eth0", "2001:db8:1:2:0:0:192.0.2.1"]) expect(clientAddress(same), same).toBe(one);
    expect(clientAddress("2001:db8:1:3::1")).not.toBe(one);
    expect(clientAddress("::1")).toBe("0:0:0:0::/64");
    expect(clientAddress("2001:db8::")).toBe("2001:db8:0:0::/64");
  });

  it("a /64's addresses share one stream or session cap", () => {
    const caps = new StreamCaps({ perClient: 2, total: 100 });
    expect(caps.take(clientAddress("2001:db8:1:2::1"))).toBeNull();
    expect(caps.take(clientAddress("2001:db8:1:2::2"))).toBeNull();
    expect(caps.take(clientAddress("2001:db8:1:2:ffff::3"))).toBe("too_many_streams");
    expect(caps.take(clientAddress("2001:db8:1:3::1"))).toBeNull();
  });
});

describe("forwardedAddress: express's req.ip under trust proxy, from node's own request", () => {
  const HEADERS = [
    undefined,
    "",
    "203.0.113.7",
    "203.0.113.7, 198.51.100.2",
    " 203.0.113.7 ,198.51.100.2 , 192.0.2.1",
    "203.0.113.7,,198.51.100.2",
    "203.0.113.7, ",
    ", , ",
    "a, b c ,d",
    "2001:db8::1, ::ffff:198.51.100.9, 10.0.0.1",
    Array.from({ length: 12 }, (_, i) => `10.0.0.${i}`).join(", "),
  ];

  it("gives what express gives, for every hop count and header (express the oracle)", async () => {
    for (const hops of [0, 1, 2, 3, 5]) {
      const app = express();
      app.set("trust proxy", hops);
      app.get("/", (req, res) => {
        res.json({ express: req.ip ?? null, ours: forwardedAddress(req, hops) ?? null });
      });
      const server = app.listen(0, "127.0.0.1");
      await new Promise((r) => server.once("listening", r));
      try {
        const { port } = server.address() as AddressInfo;
        for (const header of HEADERS) {
          const answer = await new Promise<{ express: string | null; ours: string | null }>((resolve, reject) => {
            http
              .get({ host: "127.0.0.1", port, path: "/", headers: header === undefined ? {} : { "x-forwarded-for": header } }, (res) => {
                let body = "";
                res.on("data", (c: Buffer) => (body += c.toString())).on("end", () => resolve(JSON.parse(body)));
              })
              .on("error", reject);
          });
          expect(answer.ours, `hops ${hops}, X-Forwarded-For ${JSON.stringify(header)}`).toBe(answer.express);
        }
      } finally {
        server.close();
      }
    }
  });
});
