import { createHash } from "node:crypto";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { KV } from "@nats-io/kv";
import { McpSessionSchema } from "@switchyard/packet";
import { withShown } from "../shared/deps.js";

/** The MCP door's sessions in NATS KV (MCP_SESSIONS_BUCKET, McpSession), so that every replica lists a session the same tools. */
export function mcpSessionStore(bucket: KV) {
  /** A session's tools as stored, [] for a new one. */
  async function stored(key: string): Promise<string[]> {
    const entry = await bucket.get(key);
    return entry?.value.length ? fromBinary(McpSessionSchema, entry.value).tools : [];
  }
  return {
    tools: (tenant: string, session: string) => stored(sessionKey(tenant, session)),
    /** Adds `names` to the session's tools, keeping the latest `keep`; answers the list after. */
    async expose(tenant: string, session: string, names: readonly string[], keep: number): Promise<string[]> {
      const key = sessionKey(tenant, session);
      const after = withShown(await stored(key), names, keep);
      // Two replicas updating one session at once: the last write wins, both lists are close.
      await bucket.put(key, toBinary(McpSessionSchema, create(McpSessionSchema, { tools: after })));
      return after;
    },
  };
}

/** A session's key: the tenant's and the client's ids, hashed (any characters; one tenant's session is never another's). */
function sessionKey(tenant: string, session: string): string {
  return createHash("sha256").update(`${tenant}\n${session}`).digest("hex");
}
