// A launcher killed outright (SIGKILL, an out-of-memory kill) cannot stop what it started: its
// services, nats-server and database server run on without it, holding the ports and the data
// directory the next start needs. The launcher keeps the list of what it runs in
// DATA_DIR/stack.pids; the next start with that DATA_DIR stops whatever on the list still runs.

import fs from "node:fs";
import path from "node:path";

interface Recorded {
  pid: number;
  /** The process's command line when it was recorded: a pid reused by another program is left alone. */
  cmdline: string;
}

const fileOf = (dataDir: string) => path.join(dataDir, "stack.pids");

function cmdlineOf(pid: number): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return null;
  }
}

/** Records the processes running now (the launcher's children), replacing the last record. */
export function recordStack(dataDir: string, pids: readonly number[]): void {
  const list: Recorded[] = pids.flatMap((pid) => {
    const cmdline = cmdlineOf(pid);
    return cmdline ? [{ pid, cmdline }] : [];
  });
  fs.writeFileSync(fileOf(dataDir), JSON.stringify(list), { mode: 0o600 });
}

export function forgetStack(dataDir: string): void {
  fs.rmSync(fileOf(dataDir), { force: true });
}

/** Stops what an earlier launcher of this DATA_DIR left running; says what it stopped. */
export async function stopLeftovers(dataDir: string, say: (line: string) => void): Promise<void> {
  let list: Recorded[];
  try {
    list = JSON.parse(fs.readFileSync(fileOf(dataDir), "utf8")) as Recorded[];
  } catch {
    return;
  }
  const running = list.filter((r) => cmdlineOf(r.pid) === r.cmdline);
  if (running.length > 0) {
    say(`an earlier launcher of ${dataDir} was killed and left ${running.length} processes running: stopping them`);
    for (const r of running) signal(r.pid, "SIGTERM");
    const deadline = Date.now() + 10_000;
    while (running.some((r) => cmdlineOf(r.pid) === r.cmdline) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
    for (const r of running) if (cmdlineOf(r.pid) === r.cmdline) signal(r.pid, "SIGKILL");
  }
  forgetStack(dataDir);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Gone meanwhile.
  }
}
