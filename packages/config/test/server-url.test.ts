import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ConfigError } from "../src/read-config.js";
import { resolvedServerUrlProblem, serverUrlPolicy, serverUrlProblem } from "../src/server-url.js";
import type { LookupAll } from "../src/server-url.js";

const NONE = serverUrlPolicy("");
const KEYS = { localMode: false };
const LOCAL = { localMode: true };
/** A resolver that answers from a table and asks no DNS server. */
const answers = (table: Record<string, string[]>): LookupAll => async (host) => {
  const addresses = table[host];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return addresses.map((address) => ({ address }));
};

describe("server URL policy", () => {
  it("server url - https to a public host passes; other schemes, and http but to loopback in local mode, are refused", () => {
    assert.equal(serverUrlProblem("https://tools.example.com/mcp", NONE, KEYS), undefined);
    assert.equal(serverUrlProblem("https://203.0.113.7:8443/mcp", NONE, KEYS), undefined);
    assert.match(serverUrlProblem("http://tools.example.com/mcp", NONE, KEYS)!, /^must be https/);
    assert.match(serverUrlProblem("ftp://tools.example.com/mcp", NONE, KEYS)!, /^must be https/);
    assert.match(serverUrlProblem("file:///etc/passwd", NONE, KEYS)!, /^must be https/);
    assert.equal(serverUrlProblem("not a url", NONE, KEYS), "is not a URL");
    assert.equal(serverUrlProblem("http://127.0.0.1:3001/mcp", NONE, LOCAL), undefined);
    assert.equal(serverUrlProblem("http://[::1]:3001/mcp", NONE, LOCAL), undefined);
    assert.equal(serverUrlProblem("http://localhost:3001/mcp", NONE, LOCAL), undefined);
    assert.match(serverUrlProblem("http://tools.example.com/mcp", NONE, LOCAL)!, /^must be https \(http only to loopback/);
    assert.match(serverUrlProblem("http://10.0.0.1/mcp", NONE, LOCAL)!, /^must be https/);
  });

  it("server url - link-local, private, loopback, unspecified and metadata hosts are refused, however the address is written", () => {
    const refused: [string, RegExp][] = [
      ["https://169.254.169.254/latest/meta-data", /a cloud metadata address/],
      ["https://[fd00:ec2::254]/", /a cloud metadata address/],
      ["https://metadata.google.internal/computeMetadata/v1/", /a cloud metadata service/],
      ["https://METADATA.google.internal./", /a cloud metadata service/],
      ["https://169.254.10.1/", /a link-local address/],
      ["https://[fe80::1]/", /a link-local address/],
      ["https://10.1.2.3/", /a private address/],
      ["https://172.16.0.1/", /a private address/],
      ["https://172.31.255.255/", /a private address/],
      ["https://192.168.1.1/", /a private address/],
      ["https://100.64.0.1/", /a private address/],
      ["https://[fd12:3456::1]/", /a private address/],
      ["https://127.0.0.1/", /a loopback address/],
      ["https://127.1.2.3/", /a loopback address/],
      ["https://[::1]/", /a loopback address/],
      ["https://localhost/", /a loopback address/],
      ["https://api.localhost/", /a loopback address/],
      ["https://0.0.0.0/", /an unspecified address/],
      ["https://[::]/", /an unspecified address/],
      ["https://224.0.0.1/", /a multicast or reserved address/],
      // Other spellings the URL parser turns into the same addresses.
      ["https://2130706433/", /names 127\.0\.0\.1, a loopback address/],
      ["https://0x7f.1/", /names 127\.0\.0\.1, a loopback address/],
      ["https://0251.0376.0251.0376/", /names 169\.254\.169\.254, a cloud metadata address/],
      ["https://[::ffff:10.0.0.1]/", /a private address/],
      ["https://[::ffff:169.254.169.254]/", /a cloud metadata address/],
    ];
    for (const [url, reason] of refused) assert.match(serverUrlProblem(url, NONE, KEYS) ?? "(passed)", reason, url);
    assert.match(serverUrlProblem("https://10.1.2.3/", NONE, LOCAL)!, /a private address/, "local mode lets loopback through, nothing else");
    assert.equal(serverUrlProblem("https://172.32.0.1/", NONE, KEYS), undefined, "just outside 172.16/12");
  });

  it("server url - SERVER_URL_ALLOW lets hosts, addresses and CIDRs through, over http too", () => {
    const policy = serverUrlPolicy("tools.internal, 10.1.0.0/16,127.0.0.1, fd00:ab::/32, Metadata.Google.Internal.");
    assert.equal(serverUrlProblem("http://tools.internal:8080/mcp", policy, KEYS), undefined);
    assert.equal(serverUrlProblem("http://TOOLS.internal./mcp", policy, KEYS), undefined);
    assert.equal(serverUrlProblem("https://10.1.200.3/mcp", policy, KEYS), undefined);
    assert.match(serverUrlProblem("https://10.2.0.1/mcp", policy, KEYS)!, /a private address/);
    assert.equal(serverUrlProblem("http://127.0.0.1:3001/mcp", policy, KEYS), undefined);
    assert.match(serverUrlProblem("http://127.0.0.2:3001/mcp", policy, KEYS)!, /must be https/);
    assert.equal(serverUrlProblem("https://[fd00:ab::5]/", policy, KEYS), undefined);
    assert.equal(serverUrlProblem("https://metadata.google.internal/", policy, KEYS), undefined);
    assert.match(serverUrlProblem("http://other.internal/mcp", policy, KEYS)!, /must be https/);
  });

  it("server url - a bad SERVER_URL_ALLOW entry is a ConfigError naming the variable and the entry", () => {
    for (const value of ["10.0.0.0/33", "10.0.0.0/8/8", "fd00::/129", "host name", "tools.internal/8", "http://tools.internal", "10.0.0.0/x"]) {
      assert.throws(() => serverUrlPolicy(value), (error: ConfigError) => {
        assert.equal(error.variable, "SERVER_URL_ALLOW", value);
        assert.match(error.message, /entry 1 \(/);
        return true;
      });
    }
  });

  it("server url - the resolved check refuses a name any of whose addresses is forbidden; localhost is looked up for real", async () => {
    const lookup = answers({ "tools.example.com": ["203.0.113.7"], "rebound.example.com": ["203.0.113.7", "169.254.169.254"], "inner.example.com": ["10.0.0.5"] });
    assert.equal(await resolvedServerUrlProblem("https://tools.example.com/mcp", NONE, KEYS, lookup), undefined);
    assert.match((await resolvedServerUrlProblem("https://rebound.example.com/mcp", NONE, KEYS, lookup))!, /resolves to 169\.254\.169\.254, a cloud metadata address/);
    assert.match((await resolvedServerUrlProblem("https://inner.example.com/mcp", NONE, KEYS, lookup))!, /resolves to 10\.0\.0\.5, a private address/);
    assert.equal(await resolvedServerUrlProblem("https://inner.example.com/mcp", serverUrlPolicy("10.0.0.0/24"), KEYS, lookup), undefined, "its address let through");
    assert.equal(await resolvedServerUrlProblem("https://inner.example.com/mcp", serverUrlPolicy("inner.example.com"), KEYS, answers({})), undefined, "a name let through is not looked up");
    assert.match((await resolvedServerUrlProblem("https://gone.example.com/mcp", NONE, KEYS, lookup))!, /does not resolve \(ENOTFOUND\)/);
    assert.match((await resolvedServerUrlProblem("http://10.0.0.5/mcp", NONE, KEYS, lookup))!, /must be https/, "the URL's own check first");

    // The system resolver, for localhost only: loopback, let through in local mode alone.
    assert.match((await resolvedServerUrlProblem("https://localhost:1/mcp", NONE, KEYS))!, /a loopback address/);
    assert.equal(await resolvedServerUrlProblem("http://localhost:1/mcp", NONE, LOCAL), undefined);
    assert.equal(await resolvedServerUrlProblem("http://127.0.0.1:1/mcp", NONE, LOCAL), undefined);
  });
});
