// Renders deploy/k8s with the real `kubectl kustomize`: the base or an overlay,
// with any components on top, as a user's own kustomization would.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import type { KubernetesObject } from "./deploy-schemas.js";

export const K8S_DIR = fileURLToPath(new URL("../deploy/k8s/", import.meta.url));
export const COMPONENTS = readdirSync(join(K8S_DIR, "components")).sort();
export const OVERLAYS = readdirSync(join(K8S_DIR, "overlays")).sort();

// Components (kind: Component) came with kustomize v3.7; the `labels` field with v4.1.
const LEAST_KUSTOMIZE = [4, 1];

/** Why `kubectl kustomize` cannot render here, or false when it can. */
export function kustomizeMissing(): string | false {
  const result = spawnSync("kubectl", ["version", "--client", "-o", "json"], { encoding: "utf8" });
  if (result.error || result.status !== 0) return "kubectl is not installed (Debian: apt-get install kubernetes-client)";
  const version = (JSON.parse(result.stdout) as { kustomizeVersion?: string }).kustomizeVersion ?? "";
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  const tooOld = major < LEAST_KUSTOMIZE[0]! || (major === LEAST_KUSTOMIZE[0] && minor < LEAST_KUSTOMIZE[1]!);
  return tooOld ? `kubectl's kustomize ${version || "(unknown)"} is older than v${LEAST_KUSTOMIZE.join(".")}` : false;
}

/**
 * The objects `kubectl kustomize` renders for `root` (a folder under deploy/k8s,
 * "base" or "overlays/<name>") with `components` added.
 */
export function render(root: string, components: readonly string[] = []): KubernetesObject[] {
  let dir = join(K8S_DIR, root);
  let scratch: string | undefined;
  if (components.length > 0) {
    // Kustomize takes only relative paths to other kustomizations.
    scratch = mkdtempSync(join(tmpdir(), "switchyard-kustomize-"));
    const from = (path: string) => JSON.stringify(relative(scratch!, join(K8S_DIR, path)));
    writeFileSync(
      join(scratch, "kustomization.yaml"),
      `resources: [${from(root)}]\ncomponents: [${components.map((name) => from(`components/${name}`)).join(", ")}]\n`,
    );
    dir = scratch;
  }
  try {
    const result = spawnSync("kubectl", ["kustomize", dir], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    if (result.status !== 0) throw new Error(`kubectl kustomize ${root} + [${components.join(", ")}] failed:\n${result.stderr}`);
    return parseAllDocuments(result.stdout).map((document) => document.toJS() as KubernetesObject);
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}
