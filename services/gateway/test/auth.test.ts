import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ConfigError } from "@switchyard/config";
import { apiKeyAuthenticator, authenticatorFrom, bearerToken, LOCAL_TENANT, localModeExposure, parseApiKeys } from "../src/shared/auth.js";

const KEY_A = "key-a-0123456789abcdef";
const KEY_B = "key-b-0123456789abcdef";

function throwsNaming(run: () => unknown, variable: string, message: RegExp) {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ConfigError, String(error));
    assert.equal(error.variable, variable);
    assert.match(error.message, message);
    return true;
  });
}

describe("gateway auth", () => {
  it("gateway auth - API_KEYS entries are key:tenant, separated by commas or lines, # lines are comments", () => {
    const keys = parseApiKeys(`# operators\n${KEY_A}:tenantA, ${KEY_B}:tenant-b\n\n`, "API_KEYS_FILE");
    assert.deepEqual([...keys], [
      [KEY_A, "tenantA"],
      [KEY_B, "tenant-b"],
    ]);
  });

  it("gateway auth - a bad entry names the variable and the entry, never the key", () => {
    throwsNaming(() => parseApiKeys(`${KEY_A}`, "API_KEYS"), "API_KEYS", /entry 1 is not "key:tenant"/);
    throwsNaming(() => parseApiKeys(`${KEY_A}:a,short:b`, "API_KEYS"), "API_KEYS", /entry 2: the key is shorter than 16/);
    throwsNaming(() => parseApiKeys(`${KEY_A}:a b`, "API_KEYS"), "API_KEYS", /entry 1: the tenant must be/);
    throwsNaming(() => parseApiKeys(`${KEY_A}:a,${KEY_A}:b`, "API_KEYS"), "API_KEYS", /entry 2 repeats a key/);
    assert.throws(() => parseApiKeys(`${KEY_A}`, "API_KEYS"), (error: Error) => !error.message.includes(KEY_A));
  });

  it("gateway auth - the bearer token is read from 'Bearer <key>' in any case of the scheme", () => {
    assert.equal(bearerToken(`Bearer ${KEY_A}`), KEY_A);
    assert.equal(bearerToken(`bearer ${KEY_A}`), KEY_A);
    assert.equal(bearerToken(`Basic ${KEY_A}`), undefined);
    assert.equal(bearerToken("Bearer "), undefined);
    assert.equal(bearerToken(`Bearer ${KEY_A} extra`), undefined);
    assert.equal(bearerToken(undefined), undefined);
  });

  it("gateway auth - a key names its tenant; a missing key and a wrong key are told apart", () => {
    const auth = apiKeyAuthenticator(new Map([[KEY_A, "a"], [KEY_B, "b"]]));
    assert.equal(auth.required, true);
    assert.deepEqual(auth.authenticate(`Bearer ${KEY_A}`), { tenant: "a", admin: false });
    assert.deepEqual(auth.authenticate(`Bearer ${KEY_B}`), { tenant: "b", admin: false });
    assert.equal(auth.authenticate(undefined), "missing");
    assert.equal(auth.authenticate(""), "missing");
    assert.equal(auth.authenticate(`Bearer ${KEY_A}x`), "invalid");
    assert.equal(auth.authenticate(`Bearer ${KEY_A.slice(0, -1)}`), "invalid");
    assert.equal(auth.authenticate(KEY_A), "invalid", "a key without the Bearer scheme");
  });

  it("gateway auth - keys are on by default: without any the gateway refuses to start, naming API_KEYS", () => {
    throwsNaming(() => authenticatorFrom({ AUTH: "keys" }), "API_KEYS", /no API keys.*AUTH=none/);
  });

  it("gateway auth - AUTH=none is local mode: every caller is the local tenant; keys beside it are refused", () => {
    const local = authenticatorFrom({ AUTH: "none" });
    assert.equal(local.required, false);
    assert.deepEqual(local.authenticate(undefined), { tenant: LOCAL_TENANT, admin: true }, "the one local user is the admin");
    throwsNaming(() => authenticatorFrom({ AUTH: "none", API_KEYS: `${KEY_A}:a` }), "AUTH", /API_KEYS/);
  });

  it("gateway auth - local mode listens on loopback only; another address is refused unless ALLOW_UNAUTHENTICATED_REMOTE, then warned", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "localhost"]) {
      assert.equal(localModeExposure({ AUTH: "none", HTTP_HOST: host, ALLOW_UNAUTHENTICATED_REMOTE: false }), undefined, host);
    }
    for (const host of ["0.0.0.0", "::", "10.0.0.5"]) {
      throwsNaming(() => localModeExposure({ AUTH: "none", HTTP_HOST: host, ALLOW_UNAUTHENTICATED_REMOTE: false }), "HTTP_HOST", /not loopback.*ALLOW_UNAUTHENTICATED_REMOTE=true/);
      assert.match(localModeExposure({ AUTH: "none", HTTP_HOST: host, ALLOW_UNAUTHENTICATED_REMOTE: true }) ?? "", /without a key/);
    }
    assert.equal(localModeExposure({ AUTH: "keys", HTTP_HOST: "0.0.0.0", ALLOW_UNAUTHENTICATED_REMOTE: false }), undefined, "keys: any address");
  });

  it("gateway auth - ADMIN_API_KEYS are keys of their tenant that are also admins'; alone they are enough, in both lists refused", () => {
    const auth = authenticatorFrom({ AUTH: "keys", API_KEYS: `${KEY_A}:a`, ADMIN_API_KEYS: `${KEY_B}:ops` });
    assert.deepEqual(auth.authenticate(`Bearer ${KEY_A}`), { tenant: "a", admin: false });
    assert.deepEqual(auth.authenticate(`Bearer ${KEY_B}`), { tenant: "ops", admin: true });
    assert.deepEqual(authenticatorFrom({ AUTH: "keys", ADMIN_API_KEYS: `${KEY_B}:ops` }).authenticate(`Bearer ${KEY_B}`), { tenant: "ops", admin: true });
    throwsNaming(() => authenticatorFrom({ AUTH: "keys", API_KEYS: `${KEY_B}:a`, ADMIN_API_KEYS: `${KEY_B}:ops` }), "ADMIN_API_KEYS", /repeats a key/);
    throwsNaming(() => authenticatorFrom({ AUTH: "keys", ADMIN_API_KEYS: "short:ops" }), "ADMIN_API_KEYS", /shorter than 16/);
    throwsNaming(() => authenticatorFrom({ AUTH: "none", ADMIN_API_KEYS: `${KEY_B}:ops` }), "AUTH", /ADMIN_API_KEYS/);
  });

  it("gateway auth - API_KEYS and API_KEYS_FILE add up; an unreadable file or a key in both is refused", () => {
    const files: Record<string, string> = { "/keys": `${KEY_B}:b\n` };
    const read = (path: string) => {
      const text = files[path];
      if (text === undefined) throw new Error(`ENOENT: ${path}`);
      return text;
    };
    const auth = authenticatorFrom({ AUTH: "keys", API_KEYS: `${KEY_A}:a`, API_KEYS_FILE: "/keys" }, read);
    assert.deepEqual(auth.authenticate(`Bearer ${KEY_A}`), { tenant: "a", admin: false });
    assert.deepEqual(auth.authenticate(`Bearer ${KEY_B}`), { tenant: "b", admin: false });
    throwsNaming(() => authenticatorFrom({ AUTH: "keys", API_KEYS_FILE: "/nope" }, read), "API_KEYS_FILE", /cannot be read/);
    throwsNaming(
      () => authenticatorFrom({ AUTH: "keys", API_KEYS: `${KEY_B}:a`, API_KEYS_FILE: "/keys" }, read),
      "API_KEYS_FILE",
      /repeats a key/,
    );
  });
});
