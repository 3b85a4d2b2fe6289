import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { newPacket, Turn_Role, TurnSchema } from "@switchyard/packet";
import type { Turn } from "@switchyard/packet";
import { defaultConfig } from "../src/config.js";
import type { Config } from "../src/config.js";
import { detectDomains, domainsOf } from "../src/domains.js";
import { decideIntent } from "../src/intent.js";

const user = (content: string): Turn => create(TurnSchema, { role: Turn_Role.USER, content });
const assistant = (content: string): Turn => create(TurnSchema, { role: Turn_Role.ASSISTANT, content });

/** [text, the domains it names, in table order]. */
const CASES: [string, string[]][] = [
  // Seed 003's own examples.
  ["How do I delete all files in a directory?", ["files"]],
  ["What's the derivative of x^2?", ["math"]],
  ["What are symptoms of diabetes?", ["medicine"]],
  // A path or a link counts without a keyword.
  ["read notes/todo.md", ["files"]],
  ["summarise https://example.com/post", ["web"]],
  // Plurals and phrases.
  ["list my calendar invites", ["communication"]],
  ["open a pull request for this branch", ["code"]],
  ["what's the exchange rate of the euro", ["finance"]],
  ["turn off the kitchen lights", ["home"]],
  ["will there be snow tomorrow?", ["weather"]],
  ["remember that I prefer tabs", ["memory"]],
  ["what time is it in Tokyo", ["time"]],
  // Several at once.
  ["email the tax invoice PDF to my accountant", ["files", "communication", "finance"]],
  ["check the contract for GDPR compliance", ["law"]],
  // Whole words only: no "api" in "capital", no "law" in "flaw", no "tax" in "syntax", no "fan" in "fantastic".
  ["what is the capital of France", []],
  ["there is a flaw in the syntax of my essay", []],
  ["that was fantastic, thanks", []],
  ["hello", []],
];

const config: Config = defaultConfig;

describe("domains", () => {
  for (const [text, expected] of CASES) {
    it(`domains - ${JSON.stringify(text)} is about ${expected.join(", ") || "no domain"}`, () => {
      assert.deepEqual(domainsOf(text), expected);
    });
  }

  it("domains - the prompt counts most, the turn before half, older ones only together", () => {
    const history = [user("what's the weather in Paris"), assistant("Sunny."), user("and the stock price of ACME?")];
    // finance: 0.5 (the turn before); weather: 0.25 (two turns back), below 0.5.
    assert.deepEqual(detectDomains("read notes/todo.md", history), ["files", "finance"]);
    const twice = [user("what's the weather in Paris"), user("and the forecast for Lyon?")];
    // weather: 0.5 + 0.25.
    assert.deepEqual(detectDomains("read notes/todo.md", twice), ["files", "weather"]);
  });

  it("domains - assistant turns do not count; ties are broken by name", () => {
    assert.deepEqual(detectDomains("email the invoice", [assistant("here is the weather forecast")]), [
      "communication",
      "finance",
    ]);
  });

  it("domains - the intent records detected domains but does not filter on them by default", () => {
    const packet = newPacket({ message: "please read the file notes/todo.md" });
    assert.deepEqual(decideIntent(packet, config), { next: "route" });
    assert.deepEqual(packet.intent!.domains, ["files"]);
    assert.deepEqual(packet.content!.scope!.domains, []);
    assert.match(packet.reasoning!.reflectionLog.at(-1)!.summary, /domains: files$/);
  });

  it("domains - INTENT_DOMAIN_FILTER=true makes them the packet's domains, unless the request named its own", () => {
    const filtered = newPacket({ message: "please read the file notes/todo.md" });
    decideIntent(filtered, { ...config, INTENT_DOMAIN_FILTER: true });
    assert.deepEqual(filtered.content!.scope!.domains, ["files"]);
    assert.match(filtered.reasoning!.reflectionLog.at(-1)!.summary, /routing restricted to them/);

    const asked = newPacket({ message: "please read the file notes/todo.md", scope: { domains: ["docs"] } });
    decideIntent(asked, { ...config, INTENT_DOMAIN_FILTER: true });
    assert.deepEqual(asked.content!.scope!.domains, ["docs"]);
    assert.deepEqual(asked.intent!.domains, ["files"]);
  });

  it("domains - a chat turn records its domains too, for the audit trail", () => {
    const packet = newPacket({ message: "what do you think about tax law?" });
    assert.deepEqual(decideIntent(packet, config), { done: true });
    assert.deepEqual(packet.intent!.domains, ["finance", "law"]);
  });
});
