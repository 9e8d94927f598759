import net from "node:net";
import { testEnv } from "./env.js";
import { natsServerBinary, TestNatsServer, type BusSeeds } from "./nats-server.js";

export interface TestInfra {
  natsUrl: string;
  /** The credentials of the bus at natsUrl: each principal's and the tests' admin; none for a bus without authorization. */
  natsSeeds?: BusSeeds;
  /** A Postgres URL whose user may CREATE DATABASE: each test file gets a fresh database. */
  databaseUrl: string;
  source: string;
  stop(): Promise<void>;
}

const LOCAL_NATS = "nats://127.0.0.1:4222";
const LOCAL_PG = "postgres://postgres@127.0.0.1:5432/test";

/**
 * Real infrastructure for the tests, in this order: NATS_URL / DATABASE_URL when set;
 * containers when a Docker engine answers; the local services on their standard ports
 * when they answer; otherwise a failure that says what to do. Never a mock, never a skip.
 * Where a nats-server binary is installed, the bus is one started for the run with
 * authorization on, as every deployment has it: every service in the suite connects with its
 * own credential and its permissions from proto's BUS_GRANTS.
 */
export async function resolveTestInfra(): Promise<TestInfra> {
  const infra = await resolveServers();
  const bin = natsServerBinary();
  if (!bin) return infra;
  const nats = await TestNatsServer.start(bin);
  return {
    natsUrl: nats.url,
    natsSeeds: nats.seeds,
    databaseUrl: infra.databaseUrl,
    source: `${infra.source}; NATS with authorization on at ${nats.url}`,
    stop: async () => {
      await nats.stop();
      await infra.stop();
    },
  };
}

async function resolveServers(): Promise<TestInfra> {
  if (testEnv.natsUrl && testEnv.databaseUrl) {
    return { natsUrl: testEnv.natsUrl, databaseUrl: testEnv.databaseUrl, source: "environment", stop: async () => {} };
  }
  const containers = await tryContainers();
  if (containers) return containers;
  if ((await answers(4222)) && (await answers(5432))) {
    return {
      natsUrl: testEnv.natsUrl ?? LOCAL_NATS,
      databaseUrl: testEnv.databaseUrl ?? LOCAL_PG,
      source: "local services",
      stop: async () => {},
    };
  }
  throw new Error(
    "Tests need a real NATS (with JetStream) and a real PostgreSQL. Set NATS_URL and DATABASE_URL " +
      `(for example ${LOCAL_NATS} and ${LOCAL_PG}), or run a Docker engine for testcontainers, ` +
      "or start the local services (see README.md, 'Tests').",
  );
}

async function tryContainers(): Promise<TestInfra | null> {
  const tc = await import("testcontainers");
  try {
    await tc.getContainerRuntimeClient();
  } catch {
    return null;
  }
  const { PostgreSqlContainer } = await import("@testcontainers/postgresql");
  const pgc = await new PostgreSqlContainer("postgres:15-alpine").start();
  const nats = await new tc.GenericContainer("nats:2.10-alpine").withCommand(["-js"]).withExposedPorts(4222).start();
  return {
    natsUrl: `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`,
    databaseUrl: pgc.getConnectionUri(),
    source: "testcontainers",
    stop: async () => {
      await Promise.all([pgc.stop(), nats.stop()]);
    },
  };
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: "127.0.0.1", port });
    s.setTimeout(500);
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
    s.once("timeout", () => {
      s.destroy();
      resolve(false);
    });
  });
}
