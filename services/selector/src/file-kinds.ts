/**
 * Text or media: whether a file named in the arguments suits a tool that says in its name
 * which kind it handles ("read_text_file", "read_media_file"). Only names are used, never
 * file contents; an extension or tool name that says nothing is "unknown" and never counts against.
 */
import { nameWords } from "./extract-args.js";

export type FileKind = "text" | "media" | "unknown";

const TEXT_EXTENSIONS = new Set([
  "txt", "md", "markdown", "rst", "json", "jsonl", "yaml", "yml", "toml", "ini", "cfg", "conf", "env", "csv", "tsv", "xml",
  "html", "htm", "css", "js", "mjs", "cjs", "ts", "tsx", "jsx", "py", "rb", "go", "rs", "java", "kt", "c", "h", "cpp", "hpp",
  "cs", "php", "sh", "bash", "zsh", "sql", "log", "tex", "proto",
]);
const MEDIA_EXTENSIONS = new Set([
  "png", "jpg", "jpeg", "gif", "webp", "bmp", "ico", "tif", "tiff", "heic",
  "mp3", "wav", "ogg", "flac", "m4a", "aac", "opus", "mp4", "mov", "avi", "mkv", "webm",
]);
const MEDIA_WORDS = new Set(["media", "image", "images", "audio", "video", "picture", "photo", "binary"]);

// The extension at the end of a file name: "notes/todo.md" → "md".
const EXTENSION = /\.([A-Za-z0-9]+)$/;

export function fileKindOf(path: string): FileKind {
  const extension = EXTENSION.exec(path)?.[1]?.toLowerCase();
  if (!extension) return "unknown";
  if (TEXT_EXTENSIONS.has(extension)) return "text";
  return MEDIA_EXTENSIONS.has(extension) ? "media" : "unknown";
}

export function toolFileKind(toolName: string): FileKind {
  const words = nameWords(toolName.slice(toolName.lastIndexOf(".") + 1));
  if (words.some((w) => MEDIA_WORDS.has(w))) return "media";
  return words.includes("text") ? "text" : "unknown";
}

/** True when a known tool kind meets a file of the other known kind. */
export function fileKindConflict(toolName: string, paths: string[]): boolean {
  const tool = toolFileKind(toolName);
  if (tool === "unknown") return false;
  return paths.some((p) => {
    const kind = fileKindOf(p);
    return kind !== "unknown" && kind !== tool;
  });
}
