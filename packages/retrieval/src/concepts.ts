import { stem } from "./text.js";

/**
 * Small groups of words that name the same thing in tool requests and tool
 * descriptions ("folder" / "directory", "show" / "list", "picture" / "image").
 * The local embedder adds one shared feature per group, so a request can match
 * a tool that describes the same action in other words. Kept short and
 * general on purpose: a word belongs to a group only when it nearly always
 * means the group's sense in a request to a tool. A real embedding model
 * replaces all of this.
 */
export const CONCEPT_GROUPS: readonly (readonly string[])[] = [
  // actions
  ["list", "show", "display", "enumerate", "ls"],
  ["find", "search", "lookup", "locate", "seek"],
  ["get", "fetch", "retrieve", "obtain"],
  ["read", "open", "view"],
  ["write", "save", "store"],
  ["create", "new", "add", "generate", "mkdir"],
  ["delete", "remove", "erase", "rm", "unlink"],
  ["update", "modify", "change", "edit", "alter", "replace"],
  ["move", "rename", "relocate", "mv"],
  ["copy", "duplicate", "clone", "cp"],
  ["run", "execute", "launch", "invoke"],
  ["stop", "halt", "terminate", "cancel", "abort"],
  ["send", "deliver", "submit"],
  ["calculate", "compute", "calculator", "math", "arithmetic"],
  ["summary", "summarize", "summarise", "summarization", "overview", "tldr"],
  ["translate", "translation", "translator"],
  ["compare", "comparison", "versus", "vs"],
  ["remember", "memory", "memorize", "recall"],
  ["buy", "purchase", "shopping", "shop"],
  ["reserve", "reservation", "booking"],
  // things
  ["directory", "folder", "dir", "subdirectory", "subfolder"],
  ["file", "document", "doc", "note"],
  ["size", "big", "large", "bytes", "kb", "mb"],
  ["image", "picture", "photo", "photograph", "pic"],
  ["video", "clip", "youtube"],
  ["movie", "film", "cinema"],
  ["music", "song", "album", "playlist", "singer"],
  ["audio", "sound", "voice", "speech", "spoken"],
  ["email", "mail", "inbox", "gmail"],
  ["weather", "forecast", "temperature", "rain", "snow", "sunny"],
  ["price", "cost", "pricing", "expensive", "cheap"],
  ["calendar", "schedule", "appointment", "meeting", "event"],
  ["reminder", "remind", "todo", "task"],
  ["note", "memo", "notebook"],
  ["stock", "ticker", "nasdaq", "equity"],
  ["finance", "financial", "money", "budget", "investment", "invest"],
  ["car", "vehicle", "automobile", "suv"],
  ["apartment", "house", "rent", "rental", "housing"],
  ["job", "career", "employment", "hiring", "interview"],
  ["travel", "trip", "journey", "vacation", "holiday", "tourist", "itinerary"],
  ["flight", "airline", "airport", "plane"],
  ["hotel", "accommodation", "lodging", "hostel"],
  ["restaurant", "dining", "dinner", "lunch", "cafe"],
  ["recipe", "cooking", "cook", "dish", "ingredient", "bake"],
  ["food", "meal", "eat", "nutrition", "diet", "calorie"],
  ["news", "headline", "headlines", "journalism"],
  ["map", "location", "directions", "navigate", "navigation"],
  ["time", "clock", "timezone", "date"],
  ["code", "programming", "script", "python", "javascript", "snippet"],
  ["website", "webpage", "site", "url", "link", "web"],
  ["learn", "study", "course", "teach", "tutor", "lesson", "education"],
  ["language", "spanish", "french", "german", "chinese", "mandarin", "japanese", "english"],
  ["health", "medical", "symptom", "doctor", "disease", "medicine"],
  ["exercise", "workout", "fitness", "gym", "training"],
  ["game", "gaming", "videogame"],
  ["database", "sql", "db"],
  ["repository", "repo", "github", "git"],
  ["issue", "ticket", "bug"],
  ["tree", "hierarchy", "recursive", "nested"],
  ["metadata", "info", "attribute", "stat"],
  ["pronounce", "pronunciation", "speak", "say"],
  ["law", "legal", "lawyer", "court"],
  ["tax", "taxes", "irs"],
  ["light", "lamp", "bulb"],
  ["contact", "phone"],
];

/**
 * Words that imply a concept without being interchangeable with its words:
 * "notes/todo.md" is about a text file, but "md" is not "json". In BM25 they
 * work in one direction, from the query word to the implied words; in the
 * dense vector they add the implied words' concept groups.
 */
const IMPLIED_BY: readonly (readonly [words: readonly string[], implied: readonly string[]])[] = [
  [["txt", "md", "markdown", "json", "csv", "yaml", "yml", "xml", "html", "ts", "js", "py"], ["file", "text"]],
  [["pdf", "docx"], ["file", "document"]],
  [["png", "jpg", "jpeg", "gif", "svg", "webp"], ["file", "image"]],
  [["mp3", "wav", "ogg", "flac"], ["file", "audio"]],
  [["mp4", "mov", "webm"], ["file", "video"]],
];

/** stem → the words it implies. */
const IMPLIED: ReadonlyMap<string, readonly string[]> = new Map(
  IMPLIED_BY.flatMap(([words, implied]) => words.map((word) => [stem(word), implied] as const)),
);

/** stem → the index of each concept group it belongs to. */
const CONCEPTS_BY_STEM: ReadonlyMap<string, readonly number[]> = (() => {
  const map = new Map<string, number[]>();
  CONCEPT_GROUPS.forEach((group, id) => {
    for (const word of group) {
      const s = stem(word);
      const ids = map.get(s) ?? [];
      if (!ids.includes(id)) ids.push(id);
      map.set(s, ids);
    }
  });
  return map;
})();

/** stem → the other stems of its groups. */
const RELATED: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const group of CONCEPT_GROUPS) {
    const stems = [...new Set(group.map(stem))];
    for (const s of stems) {
      const related = map.get(s) ?? [];
      for (const other of stems) if (other !== s && !related.includes(other)) related.push(other);
      map.set(s, related);
    }
  }
  return map;
})();

/** The concept groups a stem belongs to or implies (usually none, sometimes one). */
export function conceptsOf(stemmed: string): readonly number[] {
  const own = CONCEPTS_BY_STEM.get(stemmed) ?? [];
  const implied = IMPLIED.get(stemmed);
  if (implied === undefined) return own;
  return [...new Set([...own, ...implied.flatMap((word) => CONCEPTS_BY_STEM.get(stem(word)) ?? [])])];
}

/** The stems that share a concept group with this one: "folder" → "directori", "dir", … */
export function relatedStems(stemmed: string): readonly string[] {
  const implied = IMPLIED.get(stemmed);
  if (implied === undefined) return RELATED.get(stemmed) ?? [];
  const out = new Set<string>();
  for (const word of implied) {
    const s = stem(word);
    out.add(s);
    for (const r of RELATED.get(s) ?? []) out.add(r);
  }
  return [...out];
}
