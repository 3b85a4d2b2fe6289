/**
 * The structure every door accepts, checked once for each request: objects and arrays nested
 * at most MAX_JSON_DEPTH deep, and only well-formed text. A value nested deeper would be
 * stored in a packet that no stage could decode (protobuf's Value decoding stops at 100
 * levels, and each level of JSON costs it two), and a lone surrogate cannot be encoded as
 * the UTF-8 a packet's strings are.
 */

/** Levels of objects and arrays a request may nest inside its top level (arguments, `_meta`, history…). */
export const MAX_JSON_DEPTH = 32;

// In a "u" regex a surrogate pair reads as one code point; only a surrogate without its other half is category Cs.
const LONE_SURROGATE = /\p{Cs}/u;

/** What is wrong with a request's structure: the field at fault ("arguments/a/b") and why. */
export interface StructureProblem {
  field: string;
  message: string;
}

/**
 * The first place where `value` breaks the bounds, or undefined. `at` names the value's own
 * place ("" for a whole body); a nested field's is its JSON pointer without the leading
 * slash, as every door reports fields. `level` is the value's own depth: 0 for a body, whose
 * `arguments` object is then level 1; 1 for such an object checked on its own.
 */
export function structureProblem(value: unknown, at = "", level = 0): StructureProblem | undefined {
  const maxDepth = MAX_JSON_DEPTH;
  // Iterative, so a hostile body nested thousands deep cannot overflow the stack here either.
  const stack: { value: unknown; at: string; depth: number }[] = [{ value, at, depth: level }];
  while (stack.length > 0) {
    const { value: current, at: where, depth } = stack.pop()!;
    if (typeof current === "string") {
      if (LONE_SURROGATE.test(current)) return { field: where, message: `${where || "the request"} holds a lone surrogate: text must be well-formed Unicode` };
      continue;
    }
    if (current === null || typeof current !== "object") continue;
    if (depth >= maxDepth + 1) {
      return { field: where, message: `${where || "the request"} is nested deeper than ${maxDepth} levels of objects and arrays` };
    }
    const entries: [string, unknown][] = Array.isArray(current) ? current.map((item, i) => [String(i), item]) : Object.entries(current);
    for (const [key, item] of entries.reverse()) {
      const field = where === "" ? key : `${where}/${key}`;
      if (LONE_SURROGATE.test(key)) return { field: where, message: `a key in ${where || "the request"} holds a lone surrogate: text must be well-formed Unicode` };
      stack.push({ value: item, at: field, depth: depth + 1 });
    }
  }
  return undefined;
}

/** A decoder that refuses bytes that are not UTF-8, rather than replacing them. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** A body's bytes as text; undefined when they are not valid UTF-8. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** How a fastify body parser answers. */
type ParserDone = (error: Error | null, value?: unknown) => void;

/**
 * Fastify's JSON body parser with the bounds: bytes that are not UTF-8, or a body that breaks
 * `structureProblem`, fail with `invalid` (the error handler answers 400 naming the field);
 * the rest is parsed by `parse`, fastify's own (prototype poisoning refused).
 */
export function boundedJsonParser<Request>(
  parse: (request: Request, body: string, done: ParserDone) => void,
  invalid: (message: string, field?: string) => Error,
): (request: Request, bytes: Buffer, done: ParserDone) => void {
  return (request, bytes, done) => {
    const text = utf8Text(bytes);
    if (text === undefined) return done(invalid("the body is not valid UTF-8"));
    parse(request, text, (error, value) => {
      if (error) return done(error);
      const problem = structureProblem(value);
      done(problem ? invalid(problem.message, problem.field) : null, value);
    });
  };
}
