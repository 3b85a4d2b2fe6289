// Every environment variable a service reads is documented in the README and
// set wherever the service is deployed: in docker-compose.yml and in the
// service's Kubernetes ConfigMaps. Credentials are the exception: they come
// from .env (Compose) and the Secret switchyard-secrets (Kubernetes), by name,
// and never sit in a committed file.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { SERVICES } from "@switchyard/fleet";
import type { ServiceName } from "@switchyard/fleet";
import { runtimeConfigSchema } from "@switchyard/runtime";
import { configSchema as gateway } from "../services/gateway/src/config.js";
import { configSchema as intent } from "../services/intent/src/config.js";
import { configSchema as router } from "../services/embedding-router/src/config.js";
import { configSchema as selector } from "../services/selector/src/config.js";
import { configSchema as reviewer } from "../services/reviewer/src/config.js";
import { configSchema as executor } from "../services/executor/src/config.js";
import { composeEnvironment, composeService, readEnvFile } from "./compose-file.js";
import type { KubernetesObject } from "./deploy-schemas.js";
import { kustomizeMissing, render } from "./kustomize.js";

type Schema = { properties: Record<string, object> };
const OWN: Record<ServiceName, Schema> = { gateway, intent, "embedding-router": router, selector, reviewer, executor };
/** The OpenTelemetry variables a deployment sets (the SDK reads the other OTEL_* ones when present). */
const TRACING = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_SERVICE_NAME"];
const CREDENTIALS = new Set(["API_KEYS", "ADMIN_API_KEYS", "LLM_API_KEY", "ANTHROPIC_API_KEY", "EMBEDDINGS_API_KEY", "QDRANT_API_KEY"]);
/** Values a container deployment sets on purpose instead of the code's default for a process on a laptop. */
const DEPLOYMENT_VALUES = new Set(["NATS_URL", "HEALTH_PORT", "ROUTER_DATA_DIR", "SWITCHYARD_CONFIG", "SWITCHYARD_DATA_DIR", "SWITCHYARD_WORKSPACE"]);
const ENV_DIR = new URL("../deploy/k8s/base/env/", import.meta.url);
const SWITCHYARD_YAML = new URL("../deploy/k8s/base/switchyard.yaml", import.meta.url);

/** `${NAME}` references in the executor's switchyard.yaml, comments left out. */
function switchyardYamlVariables(): string[] {
  const text = readFileSync(SWITCHYARD_YAML, "utf8")
    .split("\n")
    .filter((line) => !line.trimStart().startsWith("#"))
    .join("\n");
  return [...text.matchAll(/(?<!\$)\$\{([A-Z0-9_]+)/g)].map((match) => match[1]!);
}

/** Each variable the service reads, with the code's default where it has one. */
function variablesRead(service: ServiceName): Map<string, unknown> {
  const read = new Map<string, unknown>();
  for (const schema of [runtimeConfigSchema as unknown as Schema, OWN[service]]) {
    for (const [name, spec] of Object.entries(schema.properties)) read.set(name, (spec as { default?: unknown }).default);
  }
  for (const name of TRACING) read.set(name, undefined);
  if (service === "executor") for (const name of switchyardYamlVariables()) read.set(name, undefined);
  return read;
}

const envFiles = readdirSync(ENV_DIR).filter((file) => file.endsWith(".env"));

describe("deploy environment", () => {
  it("env - every variable a service reads is documented in the README or docs/", () => {
    const docs = new URL("../docs/", import.meta.url);
    const text = [new URL("../README.md", import.meta.url), ...readdirSync(docs).filter((f) => f.endsWith(".md")).map((f) => new URL(f, docs))]
      .map((file) => readFileSync(file, "utf8"))
      .join("\n");
    for (const service of SERVICES) {
      for (const name of variablesRead(service).keys()) assert.ok(text.includes(`\`${name}\``), `${service} reads ${name}, which neither README.md nor docs/ documents`);
    }
  });

  it("env - credentials are known as such and never sit in an env file", () => {
    for (const service of SERVICES) {
      for (const name of variablesRead(service).keys()) {
        if (/(API_KEYS?|TOKEN|SECRET|PASSWORD)$/.test(name)) assert.ok(CREDENTIALS.has(name), `${name} looks like a credential: add it to CREDENTIALS and take it from the secret`);
      }
    }
    for (const file of envFiles) {
      for (const name of Object.keys(readEnvFile(new URL(file, ENV_DIR)))) assert.ok(!CREDENTIALS.has(name), `${file} holds the credential ${name}`);
    }
  });

  it("env - the env files keep the code's defaults, but for the few a container sets on purpose", () => {
    const seen = new Map<string, string>();
    for (const file of envFiles) {
      for (const [name, value] of Object.entries(readEnvFile(new URL(file, ENV_DIR)))) {
        const where = `${file}: ${name}`;
        assert.ok(!seen.has(name) || DEPLOYMENT_VALUES.has(name) || name === "OTEL_SERVICE_NAME", `${where} is set in ${seen.get(name)} too`);
        seen.set(name, file);
        if (DEPLOYMENT_VALUES.has(name)) continue;
        const defaults = SERVICES.map((service) => variablesRead(service)).filter((read) => read.has(name));
        assert.ok(defaults.length > 0, `${where}: no service reads ${name}`);
        const expected = defaults[0]!.get(name);
        if (name.startsWith("OTEL_")) continue;
        assert.equal(value, expected === undefined || expected === null ? "" : String(expected), `${where} differs from the code's default`);
      }
    }
  });

  it("env - docker-compose.yml sets every variable each service reads; credentials only by name from .env", () => {
    for (const service of SERVICES) {
      const environment = composeEnvironment(service);
      const own = composeService(service).environment ?? {};
      for (const name of variablesRead(service).keys()) {
        assert.ok(name in environment, `docker-compose.yml leaves ${name} of ${service} unset`);
        if (CREDENTIALS.has(name)) assert.match(String(own[name]), new RegExp(`^\\$\\{${name}(:?-[^}]*)?\\}$`), `${service}'s ${name} is not taken from .env by name`);
      }
    }
  });

  const skip = kustomizeMissing();
  if (skip) console.log(`Kubernetes environment check skipped: ${skip}`);
  it("env - each Deployment of deploy/k8s/base sets every variable its service reads; credentials from switchyard-secrets by name", { skip }, () => {
    const objects = render("base");
    const data = (name: string) => (objects.find((object) => object.kind === "ConfigMap" && object.metadata.name === name) as { data?: Record<string, string> } | undefined)?.data ?? {};
    type Container = { envFrom?: { configMapRef?: { name: string } }[]; env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[] };
    for (const service of SERVICES) {
      const deployment = objects.find((object) => object.kind === "Deployment" && object.metadata.name === service) as KubernetesObject & {
        spec: { template: { spec: { containers: Container[] } } };
      };
      assert.ok(deployment, `no Deployment ${service}`);
      const container = deployment.spec.template.spec.containers[0]!;
      const fromConfigMaps = new Set((container.envFrom ?? []).flatMap((ref) => Object.keys(data(ref.configMapRef?.name ?? ""))));
      const fromEnv = new Map((container.env ?? []).map((variable) => [variable.name, variable.valueFrom?.secretKeyRef]));
      for (const name of variablesRead(service).keys()) {
        if (CREDENTIALS.has(name)) {
          assert.deepEqual({ ...fromEnv.get(name), optional: undefined }, { name: "switchyard-secrets", key: name, optional: undefined }, `${service}'s ${name} is not switchyard-secrets/${name}`);
        } else {
          assert.ok(fromConfigMaps.has(name) || fromEnv.has(name), `the ${service} Deployment leaves ${name} unset`);
        }
      }
    }
  });
});
