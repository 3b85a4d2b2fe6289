// docker-compose.yml as Compose reads it: YAML merge keys resolved, env files
// loaded, ${VAR} interpolated from a .env (empty unless given).
import { readFileSync } from "node:fs";
import { parse } from "yaml";

export interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile?: string; args?: Record<string, string> };
  env_file?: string[];
  environment?: Record<string, string | number | boolean | null>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  read_only?: boolean;
  cap_drop?: string[];
}
export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

const ROOT = new URL("../", import.meta.url);

// Compose resolves `<<` merge keys (YAML 1.1); the yaml package does so only when asked.
export const compose = parse(readFileSync(new URL("docker-compose.yml", ROOT), "utf8"), { merge: true }) as ComposeFile;

export function composeService(name: string): ComposeService {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

/** Compose's interpolation: ${VAR}, ${VAR:-default} (unset or empty), ${VAR-default} (unset). */
export function interpolate(value: string, dotEnv: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?:(:?-)([^}]*))?\}/g, (_, name: string, operator: string | undefined, fallback = "") => {
    const set = dotEnv[name];
    if (operator === ":-") return set ? set : fallback;
    if (operator === "-") return set ?? fallback;
    return set ?? "";
  });
}

/** KEY=VALUE lines of an env file; `#` lines and blank lines are skipped. */
export function readEnvFile(path: string | URL): Record<string, string> {
  const entries = readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.trimStart().startsWith("#"))
    .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)] as const);
  return Object.fromEntries(entries);
}

/** What a service's process finds in its environment: its env files, then `environment`, with `dotEnv` as .env. */
export function composeEnvironment(name: string, dotEnv: Record<string, string> = {}): Record<string, string> {
  const service = composeService(name);
  const fromFiles = Object.assign({}, ...(service.env_file ?? []).map((file) => readEnvFile(new URL(file, ROOT)))) as Record<string, string>;
  const fromCompose = Object.entries(service.environment ?? {}).map(([key, value]) => [key, interpolate(String(value ?? ""), dotEnv)]);
  return { ...fromFiles, ...Object.fromEntries(fromCompose) };
}
