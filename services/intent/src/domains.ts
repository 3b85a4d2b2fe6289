/**
 * Which subject domains a conversation is about (seed 003, "context-aware tool
 * filtering"), from a small keyword table per domain. Generalised from the
 * seed: keywords match whole words (with their plurals), not substrings, so
 * "api" is not found in "capital"; a path counts for "files" and a link for
 * "web"; and each turn counts once per domain, the latest the most.
 *
 * The names are the vocabulary tools are tagged with (`domains:` in
 * switchyard.yaml), so a request's domains, a tool's and the detected ones meet.
 */
import { Turn_Role } from "@switchyard/packet";
import type { Turn } from "@switchyard/packet";
import { findPath, viewsOf } from "@switchyard/request-text";

/** Keywords per domain: lower-case words or phrases; a plural "s"/"es" is matched too. */
export const DOMAIN_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  files: [
    "file", "folder", "directory", "directories", "dir", "path", "document", "readme", "pdf", "csv", "spreadsheet",
    "attachment", "workspace", "disk", "filesystem", "file system",
  ],
  web: [
    "web", "website", "webpage", "web page", "url", "link", "internet", "online", "browser", "google", "wikipedia",
    "http", "https", "scrape", "search engine",
  ],
  code: [
    "code", "coding", "function", "class", "method", "bug", "debug", "compile", "compiler", "build", "unit test",
    "repository", "repo", "git", "commit", "branch", "pull request", "npm", "python", "javascript", "typescript",
    "script", "api", "stack trace", "exception", "lint", "refactor", "programming",
  ],
  memory: [
    "remember", "memory", "memories", "forget", "recall", "knowledge graph", "entity", "entities", "observation",
    "preference",
  ],
  time: ["time", "date", "clock", "timezone", "time zone", "today's date", "what day"],
  communication: ["email", "e-mail", "mail", "inbox", "message", "calendar", "meeting", "contact", "invite", "slack"],
  math: [
    "math", "maths", "mathematics", "calculate", "calculation", "equation", "integral", "derivative", "algebra",
    "calculus", "geometry", "theorem", "proof", "formula", "statistics", "percentage",
  ],
  medicine: [
    "medical", "medicine", "diagnosis", "symptom", "disease", "patient", "doctor", "treatment", "medication", "drug",
    "dosage", "therapy", "clinical", "health", "healthcare",
  ],
  law: ["legal", "law", "court", "contract", "regulation", "compliance", "attorney", "lawyer", "lawsuit", "gdpr"],
  finance: [
    "finance", "financial", "investment", "invest", "stock", "portfolio", "trading", "tax", "budget", "invoice",
    "payment", "bank", "currency", "exchange rate", "crypto", "price",
  ],
  home: [
    "light", "lamp", "thermostat", "heating", "heater", "fan", "blinds", "plug", "door", "lock", "tv", "television",
    "speaker", "vacuum", "smart home",
  ],
  weather: ["weather", "forecast", "rain", "snow", "temperature", "wind", "humidity", "sunny"],
};

/** How much an earlier user turn counts against the one after it: the latest turn 1, the one before 0.5, … */
const RECENCY_DECAY = 0.5;
/** A domain is kept when its weighted count reaches this: named in the latest turn, or in the one before. */
const MIN_SCORE = 0.5;
/** Earlier user turns looked at; older ones could not reach MIN_SCORE together with the rest anyway. */
const EARLIER_TURNS = 3;

function escapeRegExp(text: string): string {
  // Every character a RegExp gives a meaning to.
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// One pattern per domain: any keyword as a whole word, spaces as any run of spaces, an optional plural ending.
const PATTERNS: [string, RegExp][] = Object.entries(DOMAIN_KEYWORDS).map(([domain, words]) => [
  domain,
  new RegExp(`(?<![\\w-])(?:${words.map((w) => escapeRegExp(w).replace(/ /g, "\\s+")).join("|")})(?:e?s)?(?![\\w-])`),
]);

/** The domains one text names, in table order. */
export function domainsOf(text: string): string[] {
  const { lower } = viewsOf(text);
  const found = new Set<string>();
  for (const [domain, pattern] of PATTERNS) if (pattern.test(lower)) found.add(domain);
  const path = findPath(text);
  if (path) found.add(path.kind === "url" ? "web" : "files");
  return Object.keys(DOMAIN_KEYWORDS).filter((domain) => found.has(domain));
}

/**
 * The conversation's domains, most likely first (ties by name): each domain
 * scores 1 when the prompt names it and 0.5, 0.25, … for each earlier user
 * turn that does, and is kept at 0.5 or more.
 */
export function detectDomains(prompt: string, history: readonly Turn[]): string[] {
  const earlier = history
    .filter((turn) => turn.role === Turn_Role.USER && turn.content.trim() !== "")
    .slice(-EARLIER_TURNS)
    .reverse();
  const scores = new Map<string, number>();
  [prompt, ...earlier.map((turn) => turn.content)].forEach((text, age) => {
    for (const domain of domainsOf(text)) scores.set(domain, (scores.get(domain) ?? 0) + RECENCY_DECAY ** age);
  });
  return [...scores]
    .filter(([, score]) => score >= MIN_SCORE)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([domain]) => domain);
}
