// ESLint flat config: typescript-eslint's type-aware rules, plus the rules CONTRIBUTING.md names
// (consistent type imports, no floating promises, no import cycles, no door importing another).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import importX, { createNodeResolver } from "eslint-plugin-import-x";
import { readdirSync } from "node:fs";

// The gateway's doors (services/gateway/src/doors/<door>): no door imports another, and what
// they share (shared/) and how they reach the fleet (fleet/) import no door.
const gateway = "./services/gateway/src";
const doors = readdirSync(new URL(`${gateway}/doors`, import.meta.url));
const doorZones = [
  ...doors.map((door) => ({
    target: `${gateway}/doors/${door}`,
    from: `${gateway}/doors`,
    except: [`./${door}`],
    message: "A door imports no other door: move what both need to shared/.",
  })),
  { target: [`${gateway}/shared`, `${gateway}/fleet`], from: `${gateway}/doors`, message: "shared/ and fleet/ import no door." },
];

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
    // Sources import each other as "./x.js" (ESM); the file on disk is x.ts. Without the alias
    // import-x resolves no relative import, and no-restricted-paths lets any of them through.
    // no-cycle follows an import only into files import-x parses: TypeScript's too.
    settings: {
      "import-x/resolver-next": [createNodeResolver({ extensionAlias: { ".js": [".ts", ".tsx", ".js"] } })],
      "import-x/extensions": [".ts", ".tsx", ".js", ".mjs"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx"] },
    },
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-floating-promises": [
        "error",
        // node:test's describe/it return promises that the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: "package", package: "node:test", name: ["describe", "it", "test", "suite"] }] },
      ],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "import-x/no-cycle": "error",
      "import-x/no-restricted-paths": ["error", { basePath: import.meta.dirname, zones: doorZones }],
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
