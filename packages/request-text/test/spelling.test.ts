import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SpellingVocabulary, withCorrections } from "../src/spelling.js";

/** The caller's stop words (the router passes retrieval's). */
const STOPWORDS = new Set(["a", "the", "then", "to", "of", "or", "on", "off", "in", "it", "and", "such", "as", "with", "from", "that", "this", "please"]);

/** A small catalog's words, as the router feeds them: one source per tool. */
function vocabulary(): SpellingVocabulary {
  const v = new SpellingVocabulary({ known: (word) => STOPWORDS.has(word) });
  v.set("restart_deployment", ["restart deployment", "Restart a Kubernetes deployment of a service, such as payment-api or checkout"]);
  v.set("send_slack_message", ["send slack message", "Send a message to a Slack channel", "channel text"]);
  v.set("control_light", ["control light", "Turn a light on or off in a room: kitchen, bedroom", "target state on off"]);
  v.set("set_thermostat", ["set thermostat", "Set the thermostat's mode and temperature", "mode heat cool auto temperature"]);
  return v;
}

describe("spelling", () => {
  it("spelling - the issue's misspelt requests read as the catalog's words", () => {
    const v = vocabulary();
    const restart = v.correct("restrat the paymnet-api deploymnet");
    assert.equal(restart.text, "restart the payment-api deployment");
    assert.deepEqual(restart.corrections, [
      { written: "restrat", read: "restart" },
      { written: "paymnet", read: "payment" },
      { written: "deploymnet", read: "deployment" },
    ]);
    assert.equal(v.correct("sned slak msg to #random: pizza in the kitchen").text, "send slack msg to #random: pizza in the kitchen");
  });

  it("spelling - a capital that opens the sentence stays, read word and all", () => {
    assert.equal(vocabulary().correct("Restrat the checkout deploymnet. Then sned it").text, "Restart the checkout deployment. Then send it");
  });

  it("spelling - values the user typed are left as written", () => {
    const v = vocabulary();
    for (const text of [
      'post "sned slak" to the channel',
      "read notes/deploymnet.md",
      "write to deploymnet.txt",
      "mail restrat@acme.io",
      "open https://example.com/restrat",
      "tag build_restrat and restrat2",
      "ask Slak about it",
      "deploy v1.restrat",
      "the deploymnet folder",
    ]) {
      const { text: read, corrections } = v.correct(text);
      assert.equal(read, text, text);
      assert.deepEqual(corrections, [], text);
    }
  });

  it("spelling - words of the vocabulary, known words, short words and shared stems are never read again", () => {
    const v = vocabulary();
    // "lights" shares its stem with "light" when the caller stems; "modes" with "mode"
    const stemmed = new SpellingVocabulary({ stem: (word) => word.replace(/s$/, "") });
    stemmed.set("control_light", ["control light", "mode"]);
    assert.deepEqual(stemmed.correct("turn the lights off in every modes").corrections, []);
    // "ligt" is three edits from nothing but one from "light": a typo; "cool" is a word of the catalog
    assert.equal(v.correct("set the mode to cool").text, "set the mode to cool");
    assert.equal(v.correct("tun the ligt of").text, "tun the light of", "words of three letters stay");
    // the caller's known words and this package's verbs and number words
    assert.equal(v.correct("wiht plase").text, "wiht plase", "one edit from nothing in the vocabulary");
    assert.equal(v.correct("show me five").corrections.length, 0);
    assert.equal(v.correct("please read").corrections.length, 0);
  });

  it("spelling - an English word one edit from a catalog word is no typo", () => {
    const v = new SpellingVocabulary();
    v.set("a", ["given text tourism"]);
    assert.deepEqual(v.correct("give me the next tourist spots").corrections, []);
    assert.equal(v.correct("tourisn").text, "tourism");
  });

  it("spelling - the most frequent word at the smallest distance wins; a tie reads nothing", () => {
    const v = new SpellingVocabulary();
    v.set("a", ["cart cart cart"]);
    v.set("b", ["card"]);
    assert.equal(v.correct("carx").text, "cart", "cart is said three times, card once");
    const tie = new SpellingVocabulary();
    tie.set("a", ["cart card"]);
    assert.equal(tie.correct("carx").text, "carx");
  });

  it("spelling - a source set again or deleted changes the vocabulary", () => {
    const v = vocabulary();
    v.delete("send_slack_message");
    assert.equal(v.correct("sned slak").text, "sned slak");
    v.set("send_slack_message", ["send slack message"]);
    assert.equal(v.correct("sned slak").text, "send slack");
    v.set("send_slack_message", ["post to teams"]);
    assert.equal(v.correct("sned slak").text, "sned slak");
  });

  it("spelling - withCorrections applies the accepted corrections wherever the word is written, outside values", () => {
    const corrections = [
      { written: "coll", read: "cool" },
      { written: "restrat", read: "restart" },
    ];
    assert.equal(withCorrections('Restrat it, set mode coll and name it "coll"', corrections), 'Restart it, set mode cool and name it "coll"');
    assert.equal(withCorrections("set mode coll; restrat", corrections, (c) => c.read === "cool"), "set mode cool; restrat");
  });
});
