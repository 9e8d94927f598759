/**
 * The environment the deploy checks give the tools they run: PATH only, so a developer's shell
 * (a POSTGRES_PASSWORD exported for something else, say) cannot change what compose resolves.
 */
export const toolEnv: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
