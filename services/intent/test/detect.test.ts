import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { detectToolNeed } from "../src/detect.js";

/** [prompt, needs a tool, the rule that must decide]. */
const CASES: [string, boolean, string][] = [
  // The brief's anchors.
  ["thanks, that was helpful!", false, "smalltalk:thanks"],
  ["please read the file notes/todo.md", true, "verb:read+path"],
  ["what do you think about Rust?", false, "opinion:what-do-you-think"],
  ["hello", false, "smalltalk:greeting"],
  ["delete notes/old.md", true, "verb:delete+path"],
  ["write 'hi' to notes/a.md", true, "verb:write+path"],
  // Verbs that govern an object a tool acts on.
  ["can you read the file notes/a.md?", true, "verb:read+path"],
  ["open the readme", true, "verb:open+object"],
  ["could you please list the files in notes/", true, "verb:list+path"],
  ["copy notes/a.md to backup/a.md", true, "verb:copy+path"],
  ["summarize the file report.pdf", true, "verb:summarize+path"],
  ["open /tmp", true, "verb:open+path"],
  ["run the tests", true, "verb:run+object"],
  ["execute the deploy script", true, "verb:execute+object"],
  ["stop the server", true, "verb:stop+object"],
  ["run `npm test`", true, "verb:run+code"],
  ["search for recent papers on RAG", true, "verb:search+object"],
  ["look up the capital of France", true, "verb:look-up+object"],
  ["find the file that mentions NATS", true, "verb:find+object"],
  ["fetch https://example.com", true, "verb:fetch+url"],
  ["check my calendar for tomorrow", true, "verb:check+object"],
  ["update my profile picture", true, "verb:update+object"],
  ["remember that I prefer tabs", true, "verb:remember+object"],
  ["I'd like you to store my API key preference", true, "verb:store+object"],
  ["recall what I said about the deadline", true, "verb:recall+object"],
  ["forget that I live in Berlin", true, "verb:forget+object"],
  ["save it", true, "verb:save+anaphor"],
  ["thanks! now delete notes/old.md", true, "verb:delete+path"],
  ["first read notes/a.md, then delete it", true, "verb:read+path"],
  // Devices and shell commands.
  ["turn it off", true, "device:turn-off"],
  ["turn off the kitchen light", true, "device:turn-off"],
  ["switch the lights on", true, "device:switch-on"],
  ["set a timer for 10 minutes", true, "verb:set+object"],
  ["git status", true, "command:git"],
  ["ls -la", true, "command:ls"],
  // Paths and phrases wherever they stand.
  ["what do you think of notes/todo.md?", true, "path:notes/todo.md"],
  ["what's in notes/todo.md?", true, "path:notes/todo.md"],
  ["where is the config file?", true, "pattern:where-is-file"],
  ["what time is it?", true, "pattern:time"],
  ["what's the weather in Paris", true, "pattern:weather"],
  // The same verbs without a tool's object.
  ["write a poem about the sea", false, "default:no-indicator"],
  ["write a function that reverses a string", false, "default:no-indicator"],
  ["create a plan for my week", false, "default:no-indicator"],
  ["list three reasons to learn Rust", false, "default:no-indicator"],
  ["run a marathon", false, "default:no-indicator"],
  ["start a conversation with her", false, "default:no-indicator"],
  ["show me how closures work", false, "default:no-indicator"],
  ["show me the difference between let and const", false, "default:no-indicator"],
  ["make it shorter", false, "default:no-indicator"],
  ["get better at chess", false, "default:no-indicator"],
  ["get it?", false, "default:no-indicator"],
  ["forget it", false, "default:no-indicator"],
  ["remember when we talked about Rust?", false, "default:no-indicator"],
  ["read this: the cat sat on the mat", false, "default:no-indicator"],
  ["I find it hard to focus", false, "default:no-indicator"],
  ["draw a picture of a cat", false, "default:no-indicator"],
  // Slashes and dots of prose are not paths.
  ["and/or is ambiguous", false, "default:no-indicator"],
  ["I work 24/7", false, "default:no-indicator"],
  ["km/h is a unit", false, "default:no-indicator"],
  ["what do you think about node.js?", false, "opinion:what-do-you-think"],
  ["curl is great", false, "default:no-indicator"],
  // Questions the model answers itself.
  ["how do I read a file in Python?", false, "question:how-to"],
  ["how do I open /etc/hosts in vim?", false, "question:how-to"],
  ["explain closures in JavaScript", false, "question:explain"],
  ["should I learn Go or Rust?", false, "opinion:advice"],
  ["ok, what do you think about Go?", false, "opinion:what-do-you-think"],
  // Small talk.
  ["good morning!", false, "smalltalk:greeting"],
  ["hi there", false, "smalltalk:greeting"],
  ["ok", false, "smalltalk:ack"],
  ["bye", false, "smalltalk:farewell"],
  ["how are you?", false, "smalltalk:chitchat"],
  ["tell me a joke", false, "smalltalk:chitchat"],
  ["", false, "default:empty"],
  ["   ", false, "default:empty"],
];

describe("detect", () => {
  for (const [prompt, needsTool, rule] of CASES) {
    it(`detect - ${JSON.stringify(prompt)} → ${needsTool ? "tool" : "no tool"} by ${rule}`, () => {
      assert.deepEqual(detectToolNeed(prompt), { needsTool, rule });
    });
  }

  it("detect - a quoted literal is not structure: its commas and verbs neither split nor count", () => {
    // Without the mask the comma would cut "write 'hello" off from its path.
    assert.deepEqual(detectToolNeed("write 'hello, world' to notes/a.md"), { needsTool: true, rule: "verb:write+path" });
    assert.deepEqual(detectToolNeed("say 'read the logs' three times"), { needsTool: false, rule: "default:no-indicator" });
  });

  it("detect - curly quotes count like straight ones", () => {
    assert.equal(detectToolNeed("write \u2018hi\u2019 to notes/a.md").rule, "verb:write+path");
  });
});
