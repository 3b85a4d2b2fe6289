#!/usr/bin/env node
// Regenerates the schemas in this folder from their public sources at pinned
// versions and checks every file against SHA256SUMS. README.md says where each
// file comes from; this script is the executable form of that.
//
//   node deploy/schemas/regenerate.mjs [options]
//
//   --from DIR          read the sources from DIR (by their upstream file names:
//                       swagger.json.unprocessed, compose-spec.json,
//                       keda.sh_scaledobjects.yaml) instead of downloading them
//   --swagger FILE      the Kubernetes OpenAPI v2 document, instead of downloading it
//   --compose FILE      the Compose Specification schema, likewise
//   --keda-crd FILE     KEDA's ScaledObject CRD, likewise
//   --out DIR           write the files there (default: this folder)
//   --check             write nothing; only compare with SHA256SUMS
//   --write-sums        rewrite SHA256SUMS from what was generated (after a pin changed)
//
// Exit status: 0 when every file matches SHA256SUMS, 1 when any differs, 2 on an error.
// Node >= 20 and nothing but the repository's own installed packages: the KEDA CRD
// is read with `yaml`, which the test workspace (test/package.json) already has.

import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

/* global fetch, structuredClone -- Node >= 20 globals the repository's ESLint config does not list */

const HERE = dirname(fileURLToPath(import.meta.url));

const raw = (repo, ref, path) => `https://raw.githubusercontent.com/${repo}/${ref}/${path}`;

/** The pinned inputs. Commits, not branches, so a download is always the same bytes. */
const SOURCES = {
  swagger: {
    // Kubernetes release-1.31 api/openapi-spec/swagger.json, as kept by the Python client v31.0.0.
    url: raw("kubernetes-client/python", "bc8c6913f95fba5575f56dd60f01f3e4090cd9b4", "kubernetes/swagger.json.unprocessed"),
    file: "swagger.json.unprocessed",
    sha256: "ac2a6f2fe9263f1ad488e9ca41640fd50753b603957e0027fd6453c412ea1b7d",
  },
  compose: {
    url: raw("compose-spec/compose-spec", "170098ba07d9f53c383a41bfd4c5166b0a4529a6", "schema/compose-spec.json"),
    file: "compose-spec.json",
    sha256: "1f91e091f16b2dd50ab8860e02bb391d22df553d91c145eacedb1b6eff9c3f0e",
  },
  kedaCrd: {
    // Tag v2.20.2.
    url: raw("kedacore/keda", "68a5b5028f35b22d50597c69819ab32c4e92f21a", "config/crd/bases/keda.sh_scaledobjects.yaml"),
    file: "keda.sh_scaledobjects.yaml",
    sha256: "af35555862a83933b074af14ad439c4b4ceabaf4daa3e9338e9b23e36d308d80",
  },
};

const KUBERNETES_DIR = "kubernetes/v1.31.0-standalone-strict";

/** The kinds the deploy files use; each becomes <name>.json. */
const KUBERNETES_FILES = [
  "configmap-v1",
  "cronjob-batch-v1",
  "deployment-apps-v1",
  "horizontalpodautoscaler-autoscaling-v2",
  "ingress-networking-v1",
  "job-batch-v1",
  "namespace-v1",
  "networkpolicy-networking-v1",
  "poddisruptionbudget-policy-v1",
  "role-rbac-v1",
  "rolebinding-rbac-v1",
  "secret-v1",
  "service-v1",
  "serviceaccount-v1",
  "statefulset-apps-v1",
];

// ---------------------------------------------------------------------------
// Inputs

function options() {
  const { values } = parseArgs({
    options: {
      from: { type: "string" },
      swagger: { type: "string" },
      compose: { type: "string" },
      "keda-crd": { type: "string" },
      out: { type: "string", default: HERE },
      check: { type: "boolean", default: false },
      "write-sums": { type: "boolean", default: false },
    },
  });
  return values;
}

/** A local file when one was given (directly or through --from), else a download. */
async function load(source, localPath) {
  const bytes = localPath ? readFileSync(localPath) : await download(source.url);
  const digest = sha256(bytes);
  const origin = localPath ?? source.url;
  // Only a warning: what counts is whether the outputs match SHA256SUMS.
  const note = digest === source.sha256 ? "" : `  (expected ${source.sha256}: not the pinned input)`;
  console.log(`input  ${origin}\n       sha256 ${digest}${note}`);
  return bytes;
}

async function download(url) {
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    // Offline machines land here: say so, and name the way around it.
    throw new Error(`cannot download ${url} (${error.cause?.message ?? error.message}); use --from DIR for local copies`, { cause: error });
  }
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

function sha256(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

// ---------------------------------------------------------------------------
// Python's json.dumps(indent=2)
//
// The published files were written by Python, so the output has to match its
// layout byte for byte: ", " and ": " separators, ensure_ascii escaping of
// everything outside printable ASCII, ints as ints and floats in repr() form.
// Integers arrive as BigInt (see the parsers below) so they can be told from floats.

function pythonJson(value, level = 0) {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return pythonFloat(value);
  if (typeof value === "string") return pythonString(value);
  const inner = "  ".repeat(level + 1);
  const outer = "  ".repeat(level);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((item) => inner + pythonJson(item, level + 1)).join(",\n")}\n${outer}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  const lines = entries.map(([key, item]) => `${inner}${pythonString(key)}: ${pythonJson(item, level + 1)}`);
  return `{\n${lines.join(",\n")}\n${outer}}`;
}

const SHORT_ESCAPES = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

/** ensure_ascii: only space..~ stay as they are; the rest become \uxxxx (UTF-16 units). */
function pythonString(text) {
  const escaped = text.replace(/["\\]|[^ -~]/g, (char) => SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return `"${escaped}"`;
}

/** float.__repr__: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
function pythonFloat(number) {
  if (Number.isNaN(number)) return "NaN";
  if (!Number.isFinite(number)) return number > 0 ? "Infinity" : "-Infinity";
  const sign = number < 0 || Object.is(number, -0) ? "-" : "";
  const [mantissa, exponentText] = Math.abs(number).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const exponentSign = exponent < 0 ? "-" : "+";
    return `${sign}${digits[0]}${fraction}e${exponentSign}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  return `${sign}${whole}.${digits.slice(exponent + 1) || "0"}`;
}

/** JSON with integral numbers as BigInt, so pythonJson writes them as ints. */
function parseJson(text) {
  return JSON.parse(text, (_key, value) => (typeof value === "number" && Number.isInteger(value) ? BigInt(value) : value));
}

// ---------------------------------------------------------------------------
// Kubernetes: OpenAPI v2 definitions -> standalone, strict JSON schemas
//
// Our own implementation of what `openapi2jsonschema --expanded --kubernetes
// --stand-alone --strict` (yannh, 09bbcef) produces, which is what
// yannh/kubernetes-json-schema publishes as vX.Y.Z-standalone-strict. Its quirks
// are kept on purpose, since the point is byte-identical output; each is noted.

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

/** The file's name: <kind>[-<group's first segment>]-<version>; core has no group. */
function kubernetesFileName(definitionName) {
  const parts = definitionName.split(".");
  const kind = parts.at(-1).toLowerCase();
  const version = parts.at(-2).toLowerCase();
  const group = parts.at(-3).toLowerCase();
  return ["core", "api"].includes(group) ? `${kind}-${version}` : `${kind}-${group}-${version}`;
}

/**
 * Step 1, on all definitions at once: the tool's Kubernetes tweaks, then strictness.
 * This changes the definitions in place; the tool does too, and the kinds' own
 * schemas (step 2) are taken from these changed definitions.
 */
function prepareDefinitions(definitions) {
  // Manifests may write either form; the tool also lets a Quantity be a number.
  definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = { oneOf: [{ type: "string" }, { type: "integer" }] };
  definitions["io.k8s.apimachinery.pkg.api.resource.Quantity"] = { oneOf: [{ type: "string" }, { type: "number" }] };
  for (const definition of Object.values(definitions)) {
    for (const gvk of definition["x-kubernetes-group-version-kind"] ?? []) {
      // apiVersion and kind become enums, so a wrong kind is rejected.
      const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
      if ("apiVersion" in definition.properties) appendOnce(definition.properties.apiVersion, "enum", apiVersion);
      if ("kind" in definition.properties) appendOnce(definition.properties.kind, "enum", gvk.kind);
    }
  }
  forbidUnknownProperties(definitions);
}

function appendOnce(target, key, value) {
  target[key] ??= [];
  if (!target[key].includes(value)) target[key].push(value);
}

/**
 * additionalProperties: false on every object schema (one with "properties") below
 * `node`, unless it says otherwise. Like the tool, this walks objects only, not arrays.
 */
function forbidUnknownProperties(node) {
  for (const child of Object.values(node)) {
    if (!isObject(child)) continue;
    if ("properties" in child && !("additionalProperties" in child)) child.additionalProperties = false;
    forbidUnknownProperties(child);
  }
}

/**
 * Step 2, one kind. `shared` is the snapshot of the definitions taken after step 1
 * (the tool writes it to _definitions.json and resolves $refs against that file),
 * so later changes to `definitions` do not reach the inlined copies.
 */
function kubernetesSchema(definition, shared) {
  definition.$schema = "http://json-schema.org/schema#";
  definition.type ??= "object";
  definition.additionalProperties = false;
  const schema = inlineRefs(definition, shared, []);
  if (isObject(schema.properties)) {
    forbidUnknownProperties(schema.properties);
    schema.properties = allowNullWhenOptional(intOrStringAsOneOf(schema.properties));
  }
  return schema;
}

/** Replaces every {"$ref": "#/definitions/X", ...} by a copy of X; the ref's siblings are dropped. */
function inlineRefs(node, shared, path) {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, shared, path));
  if (!isObject(node)) return node;
  if (typeof node.$ref === "string") {
    const name = node.$ref.replace(/^#\/definitions\//, "");
    if (!(name in shared)) throw new Error(`unresolved $ref ${node.$ref}`);
    // Standalone files cannot express recursion; the kinds built here have none.
    if (path.includes(name)) throw new Error(`recursive $ref ${[...path, name].join(" -> ")}`);
    return inlineRefs(shared[name], shared, [...path, name]);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inlineRefs(value, shared, path)]));
}

/**
 * A property schema with format int-or-string becomes the IntOrString oneOf. Like
 * the tool, the check is made on object members, not on array items themselves.
 */
function intOrStringAsOneOf(node) {
  const result = {};
  for (const [key, value] of Object.entries(node)) {
    if (isObject(value)) {
      result[key] = value.format === "int-or-string" ? { oneOf: [{ type: "string" }, { type: "integer" }] } : intOrStringAsOneOf(value);
    } else if (Array.isArray(value)) {
      result[key] = value.map((item) => (isObject(item) ? intOrStringAsOneOf(item) : item));
    } else {
      result[key] = value;
    }
  }
  return result;
}

/**
 * Every "type": T becomes [T, "null"] unless the field is listed in "required".
 * The tool looks for "required" two levels up (the object whose "properties"
 * hold the field), through whatever containers lie on the way, so the kind's
 * own top-level fields always accept null. We reproduce that walk exactly,
 * `parent` and `grandParent` being the containers one and two levels up and
 * `key` the name under which `node` sits.
 */
function allowNullWhenOptional(node, parent = null, grandParent = null, key = null) {
  const result = {};
  for (const [name, value] of Object.entries(node)) {
    if (isObject(value)) {
      result[name] = allowNullWhenOptional(value, node, parent, name);
    } else if (Array.isArray(value)) {
      result[name] = value.map((item) => (isObject(item) ? allowNullWhenOptional(item, value, parent, name) : item));
    } else if (name === "type" && typeof value === "string" && value !== "null" && !isRequired(grandParent, key)) {
      result[name] = [value, "null"];
    } else {
      result[name] = value;
    }
  }
  return result;
}

/** Python's `holder and "required" in holder and key in holder["required"]`. */
function isRequired(holder, key) {
  if (!truthy(holder) || !pythonIn("required", holder)) return false;
  if (Array.isArray(holder)) throw new Error("a list holding the string 'required' is not supported");
  return pythonIn(key, holder.required);
}

function truthy(value) {
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return Object.keys(value).length > 0;
  return Boolean(value);
}

/** Python's `item in container` for the containers a schema can hold. */
function pythonIn(item, container) {
  if (Array.isArray(container) || typeof container === "string") return container.includes(item);
  if (isObject(container)) return Object.hasOwn(container, item);
  throw new Error(`cannot test membership in ${typeof container}`);
}

/** All KUBERNETES_FILES from the OpenAPI v2 document, keyed by their path here. */
function kubernetesFiles(swaggerBytes) {
  // The definitions hold no numbers; were one added, parseJson keeps ints apart from floats.
  const { definitions } = parseJson(swaggerBytes.toString("utf8"));
  prepareDefinitions(definitions);
  const shared = structuredClone(definitions);
  const files = {};
  for (const name of KUBERNETES_FILES) {
    const matches = Object.keys(definitions).filter((definitionName) => kubernetesFileName(definitionName) === name);
    if (matches.length !== 1) throw new Error(`${name}: expected one definition, found ${matches.length} (${matches.join(", ")})`);
    // No trailing newline: the tool writes json.dumps() as it is.
    files[`${KUBERNETES_DIR}/${name}.json`] = pythonJson(kubernetesSchema(definitions[matches[0]], shared));
  }
  return files;
}

// ---------------------------------------------------------------------------
// KEDA: the CRD verbatim, and its v1alpha1 openAPIV3Schema as JSON

function yamlParser() {
  // The `yaml` package of the test workspace; the repository root has no YAML parser.
  const requireFromTests = createRequire(join(HERE, "../../test/package.json"));
  return requireFromTests("yaml");
}

/** Python's yaml.safe_load + json.dump(indent=2), plus the final newline the file has. */
function scaledObjectSchema(crdBytes) {
  // YAML 1.1, as PyYAML reads it; ints as BigInt so they stay ints in the output.
  const crd = yamlParser().parse(crdBytes.toString("utf8"), { version: "1.1", intAsBigInt: true });
  const version = crd.spec.versions.find((candidate) => candidate.name === "v1alpha1");
  if (!version) throw new Error("the CRD has no version v1alpha1");
  return `${pythonJson(version.schema.openAPIV3Schema)}\n`;
}

// ---------------------------------------------------------------------------
// Checking and writing

function readSums() {
  const sums = new Map();
  for (const line of readFileSync(join(HERE, "SHA256SUMS"), "utf8").split("\n")) {
    const match = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    if (match) sums.set(match[2], match[1]);
  }
  return sums;
}

/** One line per file; true when every file matches and none is missing. */
function compare(files, sums) {
  let clean = true;
  for (const [path, content] of Object.entries(files)) {
    const digest = sha256(content);
    const expected = sums.get(path);
    if (digest === expected) {
      console.log(`OK       ${path}`);
    } else {
      clean = false;
      const why = expected ? `expected ${expected}` : "not in SHA256SUMS";
      console.log(`DIFFERS  ${path}\n         got ${digest} (${Buffer.byteLength(content)} bytes), ${why}`);
    }
  }
  for (const path of sums.keys()) {
    if (!(path in files)) {
      clean = false;
      console.log(`MISSING  ${path} (in SHA256SUMS, not generated)`);
    }
  }
  return clean;
}

function writeFiles(files, outDir) {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(outDir, path)), { recursive: true });
    writeFileSync(join(outDir, path), content);
  }
}

function writeSums(files) {
  const lines = Object.keys(files)
    .sort()
    .map((path) => `${sha256(files[path])}  ${path}\n`);
  writeFileSync(join(HERE, "SHA256SUMS"), lines.join(""));
}

async function main() {
  const opts = options();
  const local = (flag, source) => opts[flag] ?? (opts.from ? join(opts.from, source.file) : undefined);

  const swagger = await load(SOURCES.swagger, local("swagger", SOURCES.swagger));
  const compose = await load(SOURCES.compose, local("compose", SOURCES.compose));
  const kedaCrd = await load(SOURCES.kedaCrd, local("keda-crd", SOURCES.kedaCrd));

  const files = {
    "compose/compose-spec.json": compose,
    "keda/keda.sh_scaledobjects.yaml": kedaCrd,
    "keda/scaledobject_v1alpha1.json": scaledObjectSchema(kedaCrd),
    ...kubernetesFiles(swagger),
  };

  if (!opts.check) {
    const outDir = resolve(opts.out);
    writeFiles(files, outDir);
    console.log(`wrote ${Object.keys(files).length} files to ${outDir}`);
  }
  if (opts["write-sums"]) {
    writeSums(files);
    console.log("rewrote SHA256SUMS");
  }
  const clean = compare(files, readSums());
  console.log(clean ? "all files match SHA256SUMS" : "some files differ from SHA256SUMS (see above)");
  process.exitCode = clean ? 0 : 1;
}

try {
  await main();
} catch (error) {
  console.error(`regenerate: ${error.message}`);
  process.exitCode = 2;
}
