/** A tenant name: what API keys map to, packets are stamped with and catalog tools are limited to. */
export const TENANT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The tenant of every request in local mode (`AUTH=none`): one trusted user, no keys. */
export const LOCAL_TENANT = "local";

/**
 * An MCP server's name (switchyard.yaml's keys, POST /v1/servers): the first half of its
 * tools' catalog names "<server>.<tool>", so no dots, and nothing a NATS subject or URL mangles.
 */
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A tool's own name, as its server lists it: `serverToolName`, else the catalog name
 * without the "<server>." prefix every tool of its server shares ("read_text_file").
 */
export function ownToolName(tool: { name: string; server: string; serverToolName: string }): string {
  if (tool.serverToolName) return tool.serverToolName;
  return tool.server && tool.name.startsWith(`${tool.server}.`) ? tool.name.slice(tool.server.length + 1) : tool.name;
}

/** A tool is for every tenant when its `tenants` list is empty, otherwise only for those listed. */
export function toolVisibleTo(tool: { tenants: readonly string[] }, tenant: string): boolean {
  return tool.tenants.length === 0 || tool.tenants.includes(tenant);
}
