/**
 * Where an MCP server registered at run time (POST /v1/servers) may be reached: the gateway
 * checks a registration's URL, and the executor checks it again with the addresses its host
 * resolves to before every request, since NetworkPolicies hold only where a cluster enforces
 * them. Both read SERVER_URL_ALLOW, so one value lets both through.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { Type } from "typebox";
import { ConfigError, parseList } from "./read-config.js";

/** The setting, spread into the gateway's and the executor's config schemas alike. */
export const serverUrlConfigProperties = {
  SERVER_URL_ALLOW: Type.String({
    default: "",
    description:
      "Hosts, addresses and CIDRs a registered MCP server (POST /v1/servers) may be reached at although they are private, link-local, loopback or metadata addresses, over http too: tools.internal,10.1.0.0/16. Read by the gateway and the executor alike",
  }),
};

/** SERVER_URL_ALLOW, parsed: names let through as they are, addresses and CIDRs as a BlockList. */
export interface ServerUrlPolicy {
  readonly names: ReadonlySet<string>;
  readonly addresses: BlockList;
}

/** Whether a registration comes from local mode's one user (AUTH=none), who may reach loopback over http. */
export interface ServerUrlContext {
  localMode: boolean;
}

/** Resolves a host name to all its addresses (node:dns `lookup` with `all: true`). */
export type LookupAll = (host: string) => Promise<{ address: string }[]>;

// The metadata entries come first so that a refusal names the most telling reason.
const FORBIDDEN: readonly (readonly [reason: string, cidrs: readonly string[]])[] = [
  // AWS, GCP, Azure, OpenStack (169.254.169.254), AWS over IPv6, Alibaba Cloud.
  ["a cloud metadata address", ["169.254.169.254/32", "fd00:ec2::254/128", "100.100.100.200/32"]],
  ["a loopback address", ["127.0.0.0/8", "::1/128"]],
  ["a link-local address", ["169.254.0.0/16", "fe80::/10"]],
  ["a private address", ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7"]],
  ["an unspecified address", ["0.0.0.0/8", "::/128"]],
  ["a multicast or reserved address", ["224.0.0.0/3", "ff00::/8"]],
];
const LOOPBACK = FORBIDDEN[1]![0];
const RANGES = FORBIDDEN.map(([reason, cidrs]) => {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address, prefix] = cidr.split("/") as [string, string];
    list.addSubnet(address, Number(prefix), isIP(address) === 6 ? "ipv6" : "ipv4");
  }
  return [reason, list] as const;
});
/** Names of cloud metadata services, which resolve to a metadata address only inside their cloud. */
const METADATA_NAMES = new Set(["metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal"]);

/** Parses SERVER_URL_ALLOW; throws a ConfigError naming it for an entry that is no host name, address or CIDR. */
export function serverUrlPolicy(allow: string): ServerUrlPolicy {
  const names = new Set<string>();
  const addresses = new BlockList();
  parseList(allow).forEach((entry, index) => {
    const [host, prefix, extra] = entry.split("/");
    const address = bare(host!);
    const family = isIP(address);
    const bits = Number(prefix);
    if (family !== 0 && prefix === undefined) {
      addresses.addAddress(address, family === 6 ? "ipv6" : "ipv4");
    } else if (family !== 0 && extra === undefined && /^\d{1,3}$/.test(prefix!) && bits <= (family === 6 ? 128 : 32)) {
      addresses.addSubnet(address, bits, family === 6 ? "ipv6" : "ipv4");
    } else if (prefix === undefined && /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(host!.replace(/\.$/, ""))) {
      names.add(hostName(host!));
    } else {
      throw new ConfigError("SERVER_URL_ALLOW", `entry ${index + 1} ("${entry}") is no host name, IP address or CIDR (10.0.0.0/8)`);
    }
  });
  return { names, addresses };
}

/**
 * Why `url` may not be registered, or undefined when it may: it must be https (http only to
 * a host SERVER_URL_ALLOW lets through, or to loopback in local mode), and its host no
 * private, link-local, loopback (but in local mode), unspecified or metadata address or name,
 * unless let through. A host name's addresses are `resolvedServerUrlProblem`'s to check.
 */
export function serverUrlProblem(url: string, policy: ServerUrlPolicy, context: ServerUrlContext): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a URL";
  }
  // The WHATWG parser has already written IPv4 in its usual form (http://2130706433 is 127.0.0.1).
  const host = hostName(bare(parsed.hostname));
  const allowed = policy.names.has(host) || (isIP(host) !== 0 && policy.addresses.check(host, isIP(host) === 6 ? "ipv6" : "ipv4"));
  const loopbackName = host === "localhost" || host.endsWith(".localhost");
  const reason = allowed ? undefined : loopbackName ? LOOPBACK : isIP(host) !== 0 ? forbiddenRange(host) : undefined;
  const localLoopback = context.localMode && reason === LOOPBACK;
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && (allowed || localLoopback))) {
    const http = context.localMode ? "http only to loopback or to" : "http only to";
    return `must be https (${http} a host SERVER_URL_ALLOW lets through)`;
  }
  if (reason !== undefined && !localLoopback) return `names ${host}, ${reason}; SERVER_URL_ALLOW may let it through`;
  if (!allowed && METADATA_NAMES.has(host)) return `names ${host}, a cloud metadata service`;
  return undefined;
}

/**
 * `serverUrlProblem`, then every address the host resolves to (a name SERVER_URL_ALLOW lets
 * through is not looked up): one forbidden address refuses the URL. Nothing is connected to.
 */
export async function resolvedServerUrlProblem(
  url: string,
  policy: ServerUrlPolicy,
  context: ServerUrlContext,
  lookup: LookupAll = (host) => dnsLookup(host, { all: true, verbatim: true }),
): Promise<string | undefined> {
  const problem = serverUrlProblem(url, policy, context);
  if (problem !== undefined) return problem;
  const host = hostName(bare(new URL(url).hostname));
  if (isIP(host) !== 0 || policy.names.has(host)) return undefined;
  let answers: { address: string }[];
  try {
    answers = await lookup(host);
  } catch (error) {
    return `names ${host}, which does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
  for (const { address } of answers) {
    const family = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (policy.addresses.check(address, family)) continue;
    const reason = forbiddenRange(address);
    if (reason !== undefined && !(context.localMode && reason === LOOPBACK)) return `names ${host}, which resolves to ${address}, ${reason}; SERVER_URL_ALLOW may let it through`;
  }
  return undefined;
}

function forbiddenRange(address: string): string | undefined {
  const family = isIP(address) === 6 ? "ipv6" : "ipv4";
  return RANGES.find(([, list]) => list.check(address, family))?.[0];
}

/** An IPv6 host without the brackets a URL writes it in. */
function bare(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** A host name as compared: lower case, without the root's trailing dot. */
function hostName(host: string): string {
  return host.toLowerCase().replace(/\.$/, "");
}
