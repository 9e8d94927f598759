/** The environment the launcher under test inherits, as a fresh machine would give it: no NATS_URL. */
export function launcherEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...overrides };
  delete env.NATS_URL;
  return env;
}
