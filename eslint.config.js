import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", "**/.data/**", "**/drizzle/**", "bench/results/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      // Only a service's env.ts reads the environment: configuration is parsed once, with zod.
      "no-restricted-properties": ["error", { object: "process", property: "env", message: "read configuration in env.ts only" }],
    },
  },
  {
    files: ["**/env.ts"],
    rules: { "no-restricted-properties": "off" },
  },
);
