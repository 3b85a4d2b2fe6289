// ESLint flat config: typescript-eslint's type-aware rules, plus the three
// rules CONTRIBUTING.md names (consistent type imports, no floating promises, no import cycles).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import importX from "eslint-plugin-import-x";

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "packages/packet/src/gen/**", "bench/results/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: {
      // Sources belong to their package's tsconfig; tests to tsconfig.check.json.
      parserOptions: {
        // packages/console/tsconfig.json holds the console's TSX (DOM, Preact's JSX), built by Vite.
        project: ["./packages/*/tsconfig.json", "./services/*/tsconfig.json", "./bench/tsconfig.json", "./tsconfig.check.json"],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { "import-x": importX },
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-floating-promises": [
        "error",
        // node:test's describe/it return promises that the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: "package", package: "node:test", name: ["describe", "it", "test", "suite"] }] },
      ],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "import-x/no-cycle": "error",
    },
  },
  {
    // Tests read packets as proto3 JSON from HTTP answers; typing every probe adds noise, not safety.
    files: ["**/test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", AbortController: "readonly" } },
  },
);
