/**
 * Reads the JSON object out of a model's reply. Models in JSON mode answer bare JSON, but
 * in prompt mode many wrap it in a ```json fence or a sentence; the object is the text
 * from the first "{" to the last "}".
 */
export type ParsedReply = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

export function parseJsonReply(text: string | null | undefined): ParsedReply {
  if (!text || text.trim() === "") return { ok: false, error: "the reply was empty" };
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end < start) return { ok: false, error: "the reply holds no JSON object" };
  try {
    const value: unknown = JSON.parse(text.slice(start, end + 1));
    if (value === null || typeof value !== "object" || Array.isArray(value)) return { ok: false, error: "the reply is not a JSON object" };
    return { ok: true, value: value as Record<string, unknown> };
  } catch (err) {
    return { ok: false, error: `the reply is not valid JSON (${(err as Error).message})` };
  }
}
