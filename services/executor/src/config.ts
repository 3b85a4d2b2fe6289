import { serverUrlConfigProperties } from "@switchyard/config";
import { Type } from "typebox";
import type { Static } from "typebox";

/** The executor's settings, read from the environment by `readConfig(configSchema, env)`. */
export const configSchema = Type.Object(
  {
    SWITCHYARD_CONFIG: Type.String({
      minLength: 1,
      default: "switchyard.yaml",
      description: "The MCP servers file (switchyard.yaml's header documents its format); relative to the working directory",
    }),
    SWITCHYARD_DATA_DIR: Type.Optional(Type.String({
      minLength: 1,
      description: "Folder for the MCP servers' data (the memory graph); created at start. Unset: .switchyard beside the config file",
    })),
    MCP_CALL_TIMEOUT_MS: Type.Integer({
      minimum: 1,
      default: 30000,
      description: "How long one tool call may take before it fails, unless its server sets its own timeoutMs; never beyond the packet's deadline",
    }),
    TOOL_OUTPUT_MAX_BYTES: Type.Integer({
      minimum: 256,
      default: 65536,
      description: "A tool's output (and error) is cut to this many bytes (UTF-8) before it is injected into the packet",
    }),
    EXECUTION_LEASE_MS: Type.Integer({
      minimum: 300,
      default: 10000,
      description: "How long a claimed tool call holds without renewal (renewed every third of it while the call runs); after it, the claim counts as abandoned",
    }),
    /** Hosts, addresses and CIDRs a registered MCP server may be reached at although private (the gateway reads it too). */
    SERVER_URL_ALLOW: serverUrlConfigProperties.SERVER_URL_ALLOW,
  },
  { additionalProperties: false },
);

export type Config = Static<typeof configSchema>;
