/** The environment podman and docker-compose inherit from the test (PATH, HOME), with the engine's settings over it. */
export const engineEnv = (overrides: Record<string, string>): NodeJS.ProcessEnv => ({ ...process.env, ...overrides });
