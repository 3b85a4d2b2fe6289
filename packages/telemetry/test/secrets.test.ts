import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { maskSecrets, recordableText } from "../src/secrets.js";

const CASES: [string, string, string][] = [
  ["an OpenAI key", "use sk-proj-abcdefghijklmnop1234 please", "use sk-p**** please"],
  ["a bearer token", "Bearer abc.def.ghi-123456", "Bear****"],
  ["an authorization header", "Authorization: Bearer abc.def.ghi-123456", "Authorization: Be****"],
  ["a GitHub token", "ghp_0123456789abcdefghijklmnopqrstuvwxyz", "ghp_****"],
  ["an AWS access key id", "key AKIAIOSFODNN7EXAMPLE here", "key AKIA**** here"],
  ["a JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "eyJh****"],
  ["an assignment", "api_key=supersecretvalue", "api_key=su****"],
  ["a spoken password", "my password is hunter22", "my password is hu****"],
  ["a quoted token", 'token: "abcd1234efgh"', 'token: "ab****"'],
  ["a private key block", "-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----", "----****"],
];

describe("secrets", () => {
  for (const [name, text, masked] of CASES) {
    it(`secrets - masks ${name}`, () => assert.equal(maskSecrets(text), masked));
  }

  it("secrets - leaves ordinary text alone", () => {
    const text = "read notes/todo.md, then list the directory notes; the token count is 12";
    assert.equal(maskSecrets(text), text);
  });

  it("secrets - recordable text is masked, then cut", () => {
    assert.equal(recordableText("token=abcdefgh and more text", 12), "token=ab****…");
    assert.equal(recordableText("short", 12), "short");
  });
});
