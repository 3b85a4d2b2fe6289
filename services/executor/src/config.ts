import { serverUrlConfigProperties } from "@switchyard/config";
import { Type } from "typebox";
import type { Static } from "typebox";

/** The executor's settings, read from the environment by `readConfig(configSchema, env)`. */
export const configSchema = Type.Object(
  {
    /** The MCP servers file (see switchyard.yaml at the repo root); relative to the working directory. */
    SWITCHYARD_CONFIG: Type.String({ minLength: 1, default: "switchyard.yaml" }),
    /** Folder for the MCP servers' data (the memory graph); created at start. Default: .switchyard beside the config file. */
    SWITCHYARD_DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
    /** How long one tool call may take before it fails, unless its server sets its own `timeoutMs`. */
    MCP_CALL_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 30000 }),
    /** A tool's output (and error) is cut to this many bytes before it is injected into the packet. */
    TOOL_OUTPUT_MAX_BYTES: Type.Integer({ minimum: 256, default: 65536 }),
    /** How long a claimed tool call holds without renewal (renewed every third of it while the call runs); after it, the claim counts as abandoned. */
    EXECUTION_LEASE_MS: Type.Integer({ minimum: 300, default: 10000 }),
    /** Hosts, addresses and CIDRs a registered MCP server may be reached at although private (the gateway reads it too). */
    SERVER_URL_ALLOW: serverUrlConfigProperties.SERVER_URL_ALLOW,
  },
  { additionalProperties: false },
);

export type Config = Static<typeof configSchema>;
