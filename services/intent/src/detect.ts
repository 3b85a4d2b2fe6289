/**
 * Does this turn need a tool? Seed 000's two heuristics (`needs_tool_routing`,
 * §4.1, and `_detect_tool_routing_needed`, §4.2), generalised: instead of
 * substrings anywhere ("show " fires on "show me how closures work"), an action
 * verb counts only when it opens a clause as a request and governs an object a
 * tool can act on (a path, a file, a command, the web, a memory, a device).
 * Paths and links count on their own. Small talk, opinion and how-to questions
 * are recognised so that the rule that decided is always named.
 */
import { findPath, pathKindOf, stripSmalltalk, viewsOf } from "@switchyard/request-text";

/** The verdict, and the rule that decided it ("verb:read+path", "smalltalk:thanks", "default:no-indicator"). */
export interface ToolNeed {
  needsTool: boolean;
  rule: string;
}

const yes = (rule: string): ToolNeed => ({ needsTool: true, rule });
const no = (rule: string): ToolNeed => ({ needsTool: false, rule });

/** Decides by rules alone; the first rule that matches, in the order below, wins. */
export function detectToolNeed(text: string): ToolNeed {
  const views = viewsOf(text.trim());
  if (views.source === "") return no("default:empty");

  // 1. A request in the imperative: "please read notes/todo.md", "turn it off", "git status".
  const request = findRequest(views.lower, views.masked);
  if (request) return yes(request);

  const { kind: smalltalk, rest } = stripSmalltalk(views.masked);

  // 2. "How do I open a file in Python?" asks for a procedure, not for an action, even with a path in it.
  if (HOW_TO.test(rest)) return no("question:how-to");

  // 3. A path or link the user points at ("what do you think of notes/todo.md?").
  const path = findPath(views.source);
  if (path) return yes(`${path.kind}:${path.token}`);

  // 4. Opinions and explanations are the model's own job.
  for (const [rule, pattern] of OPINIONS) if (pattern.test(rest)) return no(rule);

  // 5. Phrases that need a tool wherever they stand (seed 000 §4.2, plus time and weather).
  for (const [rule, pattern] of PHRASES) if (pattern.test(views.masked)) return yes(rule);

  if (smalltalk) return no(`smalltalk:${smalltalk}`);
  return no("default:no-indicator");
}

// ---------------------------------------------------------------------------
// Requests: a clause that opens with an action verb and names its object.
// ---------------------------------------------------------------------------

/** What a verb's object may be; "object" kinds are noun lists below. */
type ObjectKind =
  | "path" | "code" | "quote" | "anaphor" | "possessive" | "any"
  | "file" | "writable" | "command" | "searchable" | "memory" | "listable" | "device";

// Nouns a file verb acts on ("read the readme", "delete the logs").
const FILE_NOUNS =
  /\b(?:files?|folders?|director(?:y|ies)|dirs?|documents?|docs?|readme|notes?|logs?|config(?:uration)?s?|contents?|attachments?|spreadsheets?|pdfs?|csvs?|repo(?:sitory|sitories)?|workspace|todos?|changelog|dockerfile|makefile|codebase)\b/;
// Nouns "write"/"create" act on; narrower than FILE_NOUNS, since "write notes on the war" is prose.
const WRITABLE_NOUNS = /\b(?:files?|folders?|director(?:y|ies)|dirs?|documents?|readme|config(?:uration)? file|todo list|entry|entries)\b/;
// Things that run ("run the tests", "restart the server").
const COMMAND_NOUNS =
  /\b(?:commands?|scripts?|tests?|test suite|specs?|builds?|programs?|process(?:es)?|jobs?|servers?|services?|containers?|shell|terminal|quer(?:y|ies)|sql|migrations?|pipelines?|linters?|lint|benchmarks?|tasks?|workflows?|projects?|apps?|applications?|notebooks?|cells?|code|snippet|packages?|dependencies|deps)\b/;
// Things fetched or searched ("find the docs", "get the weather").
const SEARCHABLE_NOUNS =
  /\b(?:web|internet|online|urls?|links?|websites?|sites?|pages?|docs|documentation|news|weather|forecast|prices?|stocks?|results?|information|info|latest|definitions?|wikipedia|articles?|papers?|emails?|inbox|messages?|calendar|events?|contacts?|memor(?:y|ies)|files?|documents?|logs?|issues?|tickets?)\b/;
// What a memory verb keeps ("remember that I prefer tabs", "store my API key").
const MEMORY_OBJECTS =
  /^(?:that|this|it|these|those|my|our|i|i'm|i've|i'd|to|notes?|memor(?:y|ies)|preferences?|facts?|reminders?)\b/;
// What "forget" deletes; "forget it" is "never mind".
const FORGET_OBJECTS = /^(?:that|my|our|what|everything|about|all|i|i'm|i've|memor(?:y|ies)|preferences?)\b/;
// Things listed ("list the tools", "list my memories").
const LISTABLE_NOUNS =
  /\b(?:tools?|process(?:es)?|containers?|entities|devices?|memories|branches|commits|tables|databases?|items|tasks|todos|servers?|services?|pods?|keys|users|issues|tickets|events|emails|messages|contacts)\b/;
// Devices and timers ("dim the lights", "set a timer").
const DEVICE_NOUNS =
  /\b(?:lights?|lamps?|thermostat|heat(?:ing|er)?|fans?|doors?|locks?|tv|television|volume|alarms?|timers?|reminders?|brightness|temperature|ac|air ?con(?:ditioning)?|blinds|plugs?|speakers?|music|songs?|playlist)\b/;
// "my calendar", "our repo": the user's own data.
const POSSESSIVE = /\b(?:my|our)\s+\w/;
// A pronoun standing for the whole object, optionally with an adverb: "delete it", "run that again".
// "this"/"these" are left out: they usually point forward at pasted text ("read this: …").
const ANAPHOR =
  /^(?:(?:it|that|them|those|the same)|(?:that|the (?:other|last|previous|first|second|same|next)) one)(?:\s+(?:again|now|please|too|for me|back|here|there|once more|as well|instead|first|later|up|out|anyway))*$/;

const NOUNS: Partial<Record<ObjectKind, RegExp>> = {
  file: FILE_NOUNS,
  writable: WRITABLE_NOUNS,
  command: COMMAND_NOUNS,
  searchable: SEARCHABLE_NOUNS,
  listable: LISTABLE_NOUNS,
  device: DEVICE_NOUNS,
};

/** Verbs by what they act on; a verb may sit in several families ("save" writes files and memories). */
const FAMILIES: { verbs: string[]; objects: ObjectKind[] }[] = [
  {
    verbs: ["read", "open", "view", "show", "display", "cat", "print", "load", "preview", "inspect", "look at", "pull up", "summarize", "summarise"],
    objects: ["path", "file", "possessive", "anaphor"],
  },
  { verbs: ["write", "create", "make", "write down", "touch", "save"], objects: ["path", "writable", "anaphor"] },
  {
    verbs: ["edit", "modify", "update", "append", "add", "overwrite", "delete", "remove", "erase", "rename", "move", "copy", "duplicate", "archive", "zip", "unzip", "compress", "extract", "download", "upload", "rm", "mv", "cp"],
    objects: ["path", "file", "possessive", "anaphor"],
  },
  { verbs: ["list", "ls", "enumerate"], objects: ["path", "file", "listable", "possessive", "anaphor"] },
  {
    verbs: ["run", "rerun", "re-run", "execute", "exec", "launch", "start", "restart", "stop", "kill", "build", "deploy", "install", "test", "lint", "compile"],
    objects: ["path", "code", "command", "anaphor"],
  },
  // Searching is a tool's job whatever is searched for.
  { verbs: ["search", "google", "grep", "locate", "look up", "lookup", "browse"], objects: ["any"] },
  { verbs: ["find", "look for", "fetch", "retrieve", "check"], objects: ["path", "quote", "file", "searchable", "possessive", "anaphor"] },
  // "get it?" means "understand?", so no anaphor here.
  { verbs: ["get"], objects: ["path", "searchable", "possessive"] },
  { verbs: ["remember", "note down", "keep in mind", "save"], objects: ["quote", "memory"] },
  { verbs: ["store", "memorize", "memorise", "recall"], objects: ["any"] },
  { verbs: ["forget"], objects: ["quote", "memory"] },
  { verbs: ["set", "dim", "brighten", "lock", "unlock", "mute", "unmute", "play", "pause", "stop"], objects: ["device"] },
];

const OBJECTS_BY_VERB = new Map<string, ObjectKind[]>();
for (const family of FAMILIES) {
  for (const verb of family.verbs) OBJECTS_BY_VERB.set(verb, [...(OBJECTS_BY_VERB.get(verb) ?? []), ...family.objects]);
}

// Any verb of the table at the start of a clause; longest first so "look up" wins over "look".
const VERB = new RegExp(
  `^(${[...OBJECTS_BY_VERB.keys()].sort((a, b) => b.length - a.length).map((v) => v.replace(/[-\s]/g, (c) => (c === " " ? "\\s+" : "\\-"))).join("|")})(?![\\w'-])`,
);

// Clause boundaries: sentence punctuation followed by a space (so "a.md" and "https://" stay whole),
// commas, newlines, and the conjunctions that start a new action.
const CLAUSE_BREAK = /[.!?;:]+(?=\s|$)|,|\n|\s(?:and|then|but|so|or|also|plus)(?=\s)/g;

// What may precede the verb of a request: politeness, sequencing, and "can you"/"I want you to" frames.
const REQUEST_LEAD =
  /^(?:(?:please|pls|plz|kindly|just|now|also|first(?:ly)?|second(?:ly)?|next|finally|then|and|so|ok(?:ay)?|hey|hi|hello|quickly|again|actually|oh|can you|could you|would you|will you|can u|could u|would u|you can|you could|i want you to|i need you to|i'?d like you to|i would like you to|go ahead and|help me|let'?s|lets|try to|i want to|i need to|i'?d like to|i would like to)\b|\d+[.)]|[-*•])\s*/;

// Shell commands typed as a request ("git status", "ls -la"); the next word must not be prose ("curl is great").
const SHELL = /^(ls|pwd)(?=\s|$)|^(git|docker|kubectl|npm|pnpm|yarn|npx|pip3?|cargo|curl|wget|mkdir|chmod|chown|cd)\s+(?!(?:is|are|was|were|vs|or|and|has|have|does|do|can|should|will)\b)[-\w./~"'`]/;

// "turn it off", "switch the kitchen light on": up to four words between the verb and its particle.
const SWITCH = /^(turn|switch|power|shut)(?:\s+[\w'_-]+){0,4}?\s+(on|off)\b/;

/** The first clause that is a request, as a rule name. */
function findRequest(lower: string, masked: string): string | undefined {
  for (const [start, end] of clauses(masked)) {
    // Drop the request's lead-in ("could you please just …"); what is left is a suffix of the clause.
    let clause = masked.slice(start, end).trimStart();
    for (let lead = REQUEST_LEAD.exec(clause); lead; lead = REQUEST_LEAD.exec(clause)) {
      clause = clause.slice(lead[0].length).trimStart();
    }
    const offset = end - clause.length;
    if (clause === "") continue;

    const shell = SHELL.exec(clause);
    if (shell) return `command:${shell[1] ?? shell[2]}`;
    const toggle = SWITCH.exec(clause);
    if (toggle) return `device:${toggle[1]}-${toggle[2]}`;

    const verb = VERB.exec(clause);
    if (!verb) continue;
    const name = verb[1]!.replace(/\s+/g, " ");
    const windowStart = offset + verb[0].length;
    const kind = objectOf(name, masked.slice(windowStart, end), lower.slice(windowStart, end));
    if (kind) return `verb:${name.replace(/ /g, "-")}+${kind}`;
  }
  return undefined;
}

/** [start, end) of each clause of the masked text. */
function clauses(masked: string): [number, number][] {
  const spans: [number, number][] = [];
  let start = 0;
  for (const m of masked.matchAll(CLAUSE_BREAK)) {
    spans.push([start, m.index]);
    start = m.index + m[0].length;
  }
  spans.push([start, masked.length]);
  return spans;
}

/** How the verb's object is named ("path", "anaphor", "object", …), or undefined when it names none a tool acts on. */
function objectOf(verb: string, maskedWindow: string, lowerWindow: string): string | undefined {
  // "show me the file": the indirect object is not the object; trailing "please" is politeness.
  const strip = (s: string) => s.trim().replace(/^me\b\s*/, "").replace(/\s*\bplease$/, "").trim();
  const masked = strip(maskedWindow);
  const lower = strip(lowerWindow);
  if (masked === "") return undefined;
  for (const kind of OBJECTS_BY_VERB.get(verb) ?? []) {
    switch (kind) {
      case "path": {
        const found = lower.split(/\s+/).map((t) => pathKindOf(t, true)).find((k) => k !== undefined);
        if (found) return found;
        break;
      }
      case "code":
        if (masked.includes("`")) return "code";
        break;
      case "quote":
        if (/["'`]_*["'`]/.test(masked)) return "quote";
        break;
      case "anaphor":
        if (ANAPHOR.test(masked)) return "anaphor";
        break;
      case "possessive":
        if (POSSESSIVE.test(masked)) return "object";
        break;
      case "memory":
        if ((verb === "forget" ? FORGET_OBJECTS : MEMORY_OBJECTS).test(masked)) return "object";
        break;
      case "any":
        return "object";
      default:
        if (NOUNS[kind]?.test(masked)) return "object";
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Everything else: questions, phrases, small talk.
// ---------------------------------------------------------------------------

// "how do I …", "how to …", "what's the best way to …": asks for a procedure.
const HOW_TO =
  /^(?:how\s+(?:do|can|could|should|would)\s+(?:i|we|one|you)\s+(?!feel\b|think\b|like\b)|how\s+to\b|what(?:'s|\s+is)\s+the\s+(?:best\s+|right\s+|easiest\s+|fastest\s+)?way\s+to\b|is\s+there\s+a\s+way\s+to\b)/;

const OPINIONS: [string, RegExp][] = [
  // "what do you think about Rust?"
  ["opinion:what-do-you-think", /^what\s+do\s+you\s+think\b/],
  // "what's your take / favourite …"
  ["opinion:your-view", /^what(?:'s|\s+is|\s+are)\s+your\s+(?:opinion|thoughts?|take|views?|favou?rite)\b|^how\s+do\s+you\s+feel\b/],
  // "do you like / prefer / agree …"
  ["opinion:do-you", /^do\s+you\s+(?:like|prefer|think|believe|agree|enjoy|love|hate|feel)\b/],
  // "which is better", "should I", "would you recommend"
  ["opinion:advice", /^(?:which\s+(?:is|one|do\s+you)\b|would\s+you\s+(?:recommend|rather|say)\b|should\s+i\b|is\s+it\s+(?:better|worth|wise|good|bad)\b)/],
  // "explain …", "tell me about …", "why …"
  ["question:explain", /^(?:(?:can|could)\s+you\s+)?(?:explain|describe|tell\s+me\s+(?:about|why|how))\b|^why\b/],
];

const PHRASES: [string, RegExp][] = [
  // Seed 000 §4.2: "read the file", "read my documents"
  ["pattern:read-file", /\bread\s+(?:the\s+|this\s+|that\s+|my\s+)?(?:file|document)s?\b/],
  // Seed 000 §4.2: "run the command", "execute a script"
  ["pattern:run-command", /\b(?:run|execute)\s+(?:the\s+|this\s+|that\s+|a\s+|my\s+)?(?:command|script)s?\b/],
  // Seed 000 §4.2: "search for …", "search the …"
  ["pattern:search-for", /\bsearch\s+(?:for|the)\s+/],
  // Seed 000 §4.2: "find the file", "find a document"
  ["pattern:find-file", /\bfind\s+(?:the\s+|a\s+|my\s+)?(?:file|document)s?\b/],
  // Seed 000 §4.1 "where is": "where is the config file?"
  ["pattern:where-is-file", /\bwhere(?:'s|\s+is|\s+are)\s+(?:the\s+|my\s+)?(?:[\w-]+\s+)?(?:file|folder|document|directory)s?\b/],
  // "what's in the config file?"
  ["pattern:file-contents", /\bwhat(?:'s|\s+is)\s+in\s+(?:the|my|this|that)\s+(?:[\w-]+\s+)?(?:file|folder|document|directory)\b/],
  // The clock is a core tool (seed 001): "what time is it", "today's date"
  ["pattern:time", /\bwhat\s+time\s+is\s+it\b|\b(?:current|local)\s+(?:time|date)\b|\bwhat(?:'s|\s+is)\s+(?:the\s+)?(?:time|date)\b|\bwhat\s+day\s+is\s+(?:it|today)\b|\btoday'?s\s+date\b/],
  // "what's the weather in Paris", "will it rain tomorrow"
  ["pattern:weather", /\bwhat(?:'s|\s+is)\s+the\s+weather\b|\bweather\s+(?:in|for|today|tomorrow|now|like)\b|\b(?:is|will)\s+it\s+(?:rain|snow)/],
];
