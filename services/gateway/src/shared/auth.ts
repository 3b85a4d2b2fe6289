import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { ConfigError } from "@switchyard/config";
import { LOCAL_TENANT, TENANT_PATTERN } from "@switchyard/packet";

export { LOCAL_TENANT };

/** Shorter keys are guessable; 16 characters is the floor, a random 32 or more is the advice. */
export const MIN_KEY_CHARS = 16;

/** Who made a request: the tenant its API key belongs to, and whether the key is an admin's (ADMIN_API_KEYS). */
export interface Caller {
  tenant: string;
  admin: boolean;
}

/**
 * Why a request was refused: no credentials at all, credentials that match no key, or too many
 * wrong keys from the client's address lately (auth-throttle.ts).
 */
export type AuthFailure = "missing" | "invalid" | "throttled";

export interface Authenticator {
  /** Keys are required; false in local mode. */
  readonly required: boolean;
  /**
   * The caller for an `Authorization` header value (HTTP header or gRPC metadata), or why there
   * is none; `client` is the address the request came from.
   */
  authenticate(authorization: string | undefined, client?: string): Caller | AuthFailure;
  /** Seconds until a throttled client may try again (Retry-After); only an authenticator that throttles has it. */
  retryAfterSeconds?(client: string): number;
}

interface StoredKey {
  digest: Buffer;
  tenant: string;
  admin: boolean;
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest();

/**
 * Parses `key:tenant` entries separated by commas or new lines; `#` starts a
 * comment line in a file. Throws a ConfigError naming `variable` on a bad entry,
 * without echoing the key.
 */
export function parseApiKeys(text: string, variable: string): Map<string, string> {
  const keys = new Map<string, string>();
  const entries = text
    .split(/\r?\n/)
    .filter((line) => !line.trimStart().startsWith("#"))
    .flatMap((line) => line.split(","))
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  entries.forEach((entry, index) => {
    const colon = entry.lastIndexOf(":");
    const key = colon < 0 ? "" : entry.slice(0, colon).trim();
    const tenant = colon < 0 ? "" : entry.slice(colon + 1).trim();
    const at = `entry ${index + 1}`;
    if (colon < 0) throw new ConfigError(variable, `${at} is not "key:tenant"`);
    if (key.length < MIN_KEY_CHARS) throw new ConfigError(variable, `${at}: the key is shorter than ${MIN_KEY_CHARS} characters`);
    if (!TENANT_PATTERN.test(tenant)) {
      throw new ConfigError(variable, `${at}: the tenant must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`);
    }
    if (keys.has(key)) throw new ConfigError(variable, `${at} repeats a key`);
    keys.set(key, tenant);
  });
  return keys;
}

/** The bearer token of an Authorization value ("Bearer <token>", scheme in any case), or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? "");
  return match?.[1];
}

/**
 * API keys checked in constant time: the presented key and every stored key are
 * compared as SHA-256 digests (equal lengths, so `timingSafeEqual` applies), and
 * every stored key is compared, so neither a key's length nor its position shows
 * in the time taken. Only digests stay in memory. The keys in `admins` are also
 * admins' (they may register MCP servers).
 */
export function apiKeyAuthenticator(keys: Map<string, string>, admins: ReadonlySet<string> = new Set()): Authenticator {
  const stored: StoredKey[] = [...keys].map(([key, tenant]) => ({ digest: sha256(key), tenant, admin: admins.has(key) }));
  return {
    required: true,
    authenticate(authorization) {
      const token = bearerToken(authorization);
      if (token === undefined) return authorization ? "invalid" : "missing";
      const digest = sha256(token);
      let found: StoredKey | undefined;
      for (const key of stored) {
        if (timingSafeEqual(key.digest, digest)) found ??= key;
      }
      return found === undefined ? "invalid" : { tenant: found.tenant, admin: found.admin };
    },
  };
}

/** Local mode: everyone is the local tenant, the one trusted user, and so an admin. */
export const localAuthenticator: Authenticator = {
  required: false,
  authenticate: () => ({ tenant: LOCAL_TENANT, admin: true }),
};

export interface AuthSettings {
  AUTH: "keys" | "none";
  API_KEYS?: string;
  API_KEYS_FILE?: string;
  ADMIN_API_KEYS?: string;
}

export interface ExposureSettings {
  AUTH: "keys" | "none";
  HTTP_HOST: string;
  ALLOW_UNAUTHENTICATED_REMOTE: boolean;
}

/** Addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Local mode (no API keys) lets whoever reaches the gateway run the configured tools, so it
 * listens on loopback only, unless ALLOW_UNAUTHENTICATED_REMOTE says the operator means it
 * (a container behind its own network): then the warning to log, else undefined.
 */
export function localModeExposure(settings: ExposureSettings): string | undefined {
  if (settings.AUTH !== "none" || isLoopback(settings.HTTP_HOST)) return undefined;
  const what = `local mode (AUTH=none) on ${settings.HTTP_HOST}, not loopback: anyone who reaches the gateway runs the configured tools without a key`;
  if (!settings.ALLOW_UNAUTHENTICATED_REMOTE) {
    throw new ConfigError("HTTP_HOST", `is ${what}; set HTTP_HOST=127.0.0.1, or API_KEYS, or ALLOW_UNAUTHENTICATED_REMOTE=true to accept it`);
  }
  return `${what} (ALLOW_UNAUTHENTICATED_REMOTE=true)`;
}

/**
 * The authenticator the settings ask for. Keys are required unless `AUTH=none`;
 * with keys required and none given the gateway refuses to start, and `AUTH=none`
 * beside keys is refused too, so a key set is never silently ignored.
 */
export function authenticatorFrom(settings: AuthSettings, readFile = (path: string) => readFileSync(path, "utf8")): Authenticator {
  const given = settings.API_KEYS !== undefined || settings.API_KEYS_FILE !== undefined || settings.ADMIN_API_KEYS !== undefined;
  if (settings.AUTH === "none") {
    if (given) throw new ConfigError("AUTH", "is none, but API_KEYS, API_KEYS_FILE or ADMIN_API_KEYS is set; unset one or the other");
    return localAuthenticator;
  }
  const keys = new Map<string, string>();
  const add = (more: Map<string, string>, variable: string) => {
    for (const [key, tenant] of more) {
      if (keys.has(key)) throw new ConfigError(variable, "repeats a key of API_KEYS");
      keys.set(key, tenant);
    }
  };
  if (settings.API_KEYS !== undefined) add(parseApiKeys(settings.API_KEYS, "API_KEYS"), "API_KEYS");
  if (settings.API_KEYS_FILE !== undefined) {
    let text: string;
    try {
      text = readFile(settings.API_KEYS_FILE);
    } catch (error) {
      throw new ConfigError("API_KEYS_FILE", `cannot be read: ${(error as Error).message}`);
    }
    add(parseApiKeys(text, "API_KEYS_FILE"), "API_KEYS_FILE");
  }
  const admins = new Set<string>();
  if (settings.ADMIN_API_KEYS !== undefined) {
    const adminKeys = parseApiKeys(settings.ADMIN_API_KEYS, "ADMIN_API_KEYS");
    add(adminKeys, "ADMIN_API_KEYS");
    for (const key of adminKeys.keys()) admins.add(key);
  }
  if (keys.size === 0) {
    throw new ConfigError(
      "API_KEYS",
      "no API keys: set API_KEYS (key:tenant,…) or API_KEYS_FILE, or AUTH=none for local mode without keys",
    );
  }
  return apiKeyAuthenticator(keys, admins);
}
