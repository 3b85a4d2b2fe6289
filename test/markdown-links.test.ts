// Every relative link of the project's documents leads somewhere: the file exists, and a
// `#fragment` names one of its headings (as GitHub makes their anchors). Moving a section
// between the README and docs/ cannot leave a reader at a dead link.
import { it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { REPO_ROOT } from "./start-script.js";

const DOCUMENTS = [
  "README.md",
  "CONTRIBUTING.md",
  "bench/README.md",
  "deploy/README.md",
  ...readdirSync(join(REPO_ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`),
  ...readdirSync(join(REPO_ROOT, "services")).map((s) => `services/${s}/README.md`),
].filter((file) => existsSync(join(REPO_ROOT, file)));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = fenced ? undefined : /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .toLowerCase()
      .replace(/<[^>]+>/g, "")
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const times = seen.get(slug) ?? 0;
    anchors.add(times ? `${slug}-${times}` : slug);
    seen.set(slug, times + 1);
  }
  return anchors;
}

/** The document's links that are neither absolute URLs nor mail, outside code. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

it("docs - every relative link of the README, docs/ and the service READMEs reaches a file, and its #fragment a heading", () => {
  const dead: string[] = [];
  for (const document of DOCUMENTS) {
    const text = readFileSync(join(REPO_ROOT, document), "utf8");
    for (const link of relativeLinks(text)) {
      const [path, fragment] = link.split("#") as [string, string | undefined];
      const target = path ? join(REPO_ROOT, dirname(document), decodeURIComponent(path)) : join(REPO_ROOT, document);
      if (!existsSync(target)) {
        dead.push(`${document}: ${link} (no ${relative(REPO_ROOT, target)})`);
        continue;
      }
      if (fragment && target.endsWith(".md") && statSync(target).isFile() && !anchorsOf(readFileSync(target, "utf8")).has(fragment)) {
        dead.push(`${document}: ${link} (no heading #${fragment})`);
      }
    }
  }
  assert.deepEqual(dead, []);
});
