// The container engine of the container tests: Debian's podman, set up for these machines, with
// its Docker-compatible API on a private socket so Debian's docker-compose 1.29 drives it as it
// would drive Docker.
//
// What these machines need (issue 20, seen here):
// - runc with cgroupfs: crun refuses this kernel's hybrid cgroups;
// - explicit ulimits no higher than this process's hard limits (podman's defaults are refused);
// - no systemd: podman runs health checks from systemd timers, so none would ever run and
//   compose's `condition: service_healthy` would wait forever. A HEALTH TICKER here stands in
//   for those timers: every HEALTH_TICK_MS it runs `podman healthcheck run` on each running
//   container of the project, which is what the timer does.
// Restart policies need no systemd (conmon restarts the container).

import { spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { engineEnv } from "./env.js";

export const HEALTH_TICK_MS = 2_000;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Engine {
  /** The environment that makes podman and docker-compose use this engine (CONTAINERS_CONF, DOCKER_HOST). */
  readonly env: NodeJS.ProcessEnv;
  /** The ulimits every container gets (and a build must be given): this process's hard limits, capped. */
  readonly limits: { nofile: number; nproc: number };
  /** podman, synchronously; a non-zero exit throws with its output unless `allowFailure`. */
  podman(args: string[], opts?: { allowFailure?: boolean; timeoutMs?: number }): SpawnSyncReturns<string>;
  /** podman or docker-compose, asynchronously (long builds and `up` must not stall the test's timers). */
  exec(cmd: string, args: string[], opts?: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Run>;
  /** Runs the health checks of the project's containers until stopped (see above). */
  tickHealth(project: string): () => void;
  stop(): Promise<void>;
}

/** The hard limits of this process, which a container's limits may not exceed. */
function hardLimits(): { nofile: number; nproc: number } {
  const res = spawnSync("sh", ["-c", "ulimit -Hn; ulimit -Hu"], { encoding: "utf8" });
  const [nofile, nproc] = res.stdout.trim().split("\n").map((v) => (v === "unlimited" ? Infinity : Number(v)));
  return { nofile: Math.min(nofile ?? 1024, 65_536), nproc: Math.min(nproc ?? 4096, 8_192) };
}

export async function startEngine(workDir: string): Promise<Engine> {
  mkdirSync(workDir, { recursive: true });
  const limits = hardLimits();
  const conf = path.join(workDir, "containers.conf");
  writeFileSync(
    conf,
    [
      "[containers]",
      `default_ulimits = ["nofile=${limits.nofile}:${limits.nofile}", "nproc=${limits.nproc}:${limits.nproc}"]`,
      "[engine]",
      'runtime = "runc"',
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      "",
    ].join("\n"),
  );
  const socket = path.join(workDir, "podman.sock");
  const env = engineEnv({ CONTAINERS_CONF: conf, DOCKER_HOST: `unix://${socket}`, COMPOSE_HTTP_TIMEOUT: "300" });
  const service = spawn("podman", ["system", "service", "--time=0", `unix://${socket}`], { env, stdio: ["ignore", "ignore", "pipe"] });
  let serviceErr = "";
  service.stderr.on("data", (d: Buffer) => (serviceErr = (serviceErr + d.toString()).slice(-4000)));
  for (let i = 0; !existsSync(socket); i++) {
    if (service.exitCode !== null || i > 100) throw new Error(`podman system service did not start:\n${serviceErr}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  const exec: Engine["exec"] = (cmd, args, opts = {}) =>
    new Promise((resolve) => {
      const child = spawn(cmd, args, { env: opts.env ?? env, cwd: opts.cwd, stdio: ["ignore", "pipe", "pipe"] });
      const run: Run = { code: null, stdout: "", stderr: "" };
      child.stdout.on("data", (d: Buffer) => (run.stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (run.stderr += d.toString()));
      const guard = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 600_000);
      child.on("close", (code) => {
        clearTimeout(guard);
        run.code = code;
        resolve(run);
      });
    });

  return {
    env,
    limits,
    podman(args, opts = {}) {
      const res = spawnSync("podman", args, { env, encoding: "utf8", timeout: opts.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 });
      if (res.error) throw res.error;
      if (res.status !== 0 && !opts.allowFailure) throw new Error(`podman ${args.join(" ")} exited ${res.status}:\n${res.stderr}`);
      return res;
    },
    exec,
    tickHealth(project) {
      let stopped = false;
      void (async () => {
        while (!stopped) {
          const ps = await exec("podman", ["ps", "-q", "--filter", `label=com.docker.compose.project=${project}`]);
          const ids = ps.stdout.split("\n").filter(Boolean);
          // A container without a health check answers with an error: nothing to do for it.
          await Promise.all(ids.map((id) => exec("podman", ["healthcheck", "run", id], { timeoutMs: 10_000 })));
          await new Promise((r) => setTimeout(r, HEALTH_TICK_MS));
        }
      })();
      return () => {
        stopped = true;
      };
    },
    async stop() {
      service.kill("SIGTERM");
      await new Promise((r) => (service.exitCode !== null ? r(null) : service.once("exit", r)));
    },
  };
}
