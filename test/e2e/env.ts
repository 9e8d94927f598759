/** The environment the launcher under test inherits, as a fresh machine would give it: no NATS_URL. */
export function launcherEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...overrides };
  delete env.NATS_URL;
  return env;
}

/** The environment of a tool run beside the launched stack (the licence CLI): these settings over the inherited ones. */
export const toolEnv = (overrides: Record<string, string>): NodeJS.ProcessEnv => ({ ...process.env, ...overrides });
