/**
 * Catalog tool names as MCP clients and model APIs accept them (`^[a-zA-Z0-9_-]{1,64}$`):
 * the MCP door lists tools by these names, and the model doors know a core tool by them too.
 */
import { createHash } from "node:crypto";

const VALID_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_NAME = 64;

/** `filesystem.read_text_file` → `filesystem_read_text_file`; too long → cut, with a hash of the whole name. */
export function clientSafe(name: string): string {
  const safe = name.replace(/[^a-zA-Z0-9_-]/g, "_");
  return VALID_NAME.test(safe) ? safe : withHash(safe, name);
}

/** `safe` cut to fit, ending in a hash of the whole `name`: distinct names stay distinct. */
export function withHash(safe: string, name: string): string {
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${safe.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}
