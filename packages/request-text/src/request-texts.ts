/**
 * Which text of a packet is the request a stage acts on. The selector and the reviewer must
 * read the same one, so the reviewer judges the request the selector answered.
 */
import { contentOf, intentOf } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";

/**
 * The packet's request texts, most specific first: the current step, the intent's query, the
 * earlier turns it points back at (latest first), the original prompt; trimmed, blank ones and
 * repeats left out. The first is the request; the others are where a missing argument may
 * still be found.
 */
export function requestTexts(packet: Packet): string[] {
  const intent = intentOf(packet);
  const context = [...intent.queryContext].reverse();
  const texts = [intent.steps[intent.stepIndex] ?? "", intent.query, ...context, contentOf(packet).originalPrompt].map((t) => t.trim());
  return [...new Set(texts.filter(Boolean))];
}
