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
  ["create", "make", "new", "add", "generate", "mkdir"],
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
  ["file", "document", "doc"],
  ["image", "picture", "photo", "photograph", "pic", "png", "jpg", "jpeg"],
  ["video", "clip", "youtube"],
  ["movie", "film", "cinema"],
  ["music", "song", "album", "playlist", "singer"],
  ["audio", "sound", "mp3", "voice", "speech", "spoken"],
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

/** The concept groups a stem belongs to (usually none, sometimes one). */
export function conceptsOf(stemmed: string): readonly number[] {
  return CONCEPTS_BY_STEM.get(stemmed) ?? [];
}
