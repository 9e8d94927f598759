import http from "node:http";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { serverStopper } from "../../src/http/stop-server.js";

const closed = (socket: net.Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once("close", () => resolve())));

describe("serverStopper", () => {
  it("closes connections that never sent a byte and idle keep-alive ones at once, and lets an answer in progress finish", async () => {
    let answer: http.ServerResponse | null = null;
    const server = http.createServer((req, res) => {
      if (req.url === "/slow") answer = res;
      else res.end("ok");
    });
    const stop = serverStopper(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;

    // A pre-connect: connected, nothing sent (node's closeIdleConnections leaves it open).
    const silent = net.connect(port, "127.0.0.1");
    await new Promise<void>((resolve) => silent.once("connect", () => resolve()));
    silent.on("error", () => undefined);
    // A keep-alive connection between requests.
    const agent = new http.Agent({ keepAlive: true });
    await new Promise<void>((resolve) => http.get({ port, host: "127.0.0.1", agent }, (r) => r.resume().on("end", resolve)));
    // An answer in progress.
    let body = "";
    const slow = new Promise<void>((resolve) => http.get({ port, host: "127.0.0.1", path: "/slow", agent: false }, (r) => r.setEncoding("utf8").on("data", (c: string) => (body += c)).on("end", resolve)));
    while (!answer) await new Promise((r) => setTimeout(r, 5));

    const started = performance.now();
    const stopped = stop();
    await closed(silent);
    expect(performance.now() - started).toBeLessThan(1000);
    (answer as http.ServerResponse).end("done");
    await slow;
    await stopped;
    expect(body).toBe("done");
    agent.destroy();
  });
});
