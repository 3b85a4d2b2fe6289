import type { ConfigSchema } from "@switchyard/config";

/** The executor's settings, read from the environment by `readConfig(configSchema, env)`. */
export const configSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    /** The MCP servers file (see switchyard.yaml at the repo root); relative to the working directory. */
    SWITCHYARD_CONFIG: { type: "string", minLength: 1, default: "switchyard.yaml" },
    /** Folder for the MCP servers' data (the memory graph); created at start. Default: .switchyard beside the config file. */
    SWITCHYARD_DATA_DIR: { type: "string", minLength: 1 },
    /** How long one tool call may take before it fails, unless its server sets its own `timeoutMs`. */
    MCP_CALL_TIMEOUT_MS: { type: "integer", minimum: 1, default: 30000 },
    /** A tool's output (and error) is cut to this many bytes before it is injected into the packet. */
    TOOL_OUTPUT_MAX_BYTES: { type: "integer", minimum: 256, default: 65536 },
    /** How long a claimed tool call holds without renewal (renewed every third of it while the call runs); after it, the claim counts as abandoned. */
    EXECUTION_LEASE_MS: { type: "integer", minimum: 300, default: 10000 },
  },
} satisfies ConfigSchema;

export interface Config {
  /** @default "switchyard.yaml" */
  SWITCHYARD_CONFIG: string;
  SWITCHYARD_DATA_DIR?: string;
  /** @default 30000 */
  MCP_CALL_TIMEOUT_MS: number;
  /** @default 65536 */
  TOOL_OUTPUT_MAX_BYTES: number;
  /** @default 10000 */
  EXECUTION_LEASE_MS: number;
}
