/**
 * Text or media: whether a file named in the arguments suits a tool that says in its name
 * which kind it handles ("read_text_file", "read_media_file"). Only names are used, never
 * file contents; an extension or tool name that says nothing is "unknown" and never counts against.
 */
import { fileKindOf, localToolName, splitWords } from "@switchyard/request-text";
import type { FileKind } from "@switchyard/request-text";

const MEDIA_WORDS = new Set(["media", "image", "images", "audio", "video", "picture", "photo", "binary"]);

export function toolFileKind(toolName: string): FileKind {
  const words = splitWords(localToolName(toolName));
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
