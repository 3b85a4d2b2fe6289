import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { Ajv } from "ajv";
import type { ErrorObject } from "ajv";
import { parse } from "yaml";

// The Compose Specification's JSON schema, kept offline beside the repository (../shared/schemas/README.md).
const COMPOSE_SCHEMA = new URL("../../shared/schemas/compose/compose-spec.json", import.meta.url);
const FLEET = ["gateway", "intent", "embedding-router", "selector", "reviewer", "executor"];
// OTLP's standard ports: gRPC on 4317, HTTP (protobuf or JSON) on 4318.
const OTLP_PORTS: Record<string, string> = { grpc: "4317", "http/protobuf": "4318", "http/json": "4318" };

interface Service {
  image?: string;
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | number | { target: number | string; published?: number | string })[];
  depends_on?: string[] | Record<string, unknown>;
}
interface ComposeFile {
  services: Record<string, Service>;
}

// Compose resolves `<<` merge keys (YAML 1.1); the yaml package does so only when asked.
const compose = parse(readFileSync(new URL("../docker-compose.yml", import.meta.url), "utf8"), {
  merge: true,
}) as ComposeFile;

function service(name: string): Service {
  const found = compose.services[name];
  assert.ok(found, `docker-compose.yml has no service ${name}`);
  return found;
}

/** A service's environment as a map, whichever of the two forms Compose allows it is written in. */
function environment(name: string): Record<string, string> {
  const env = service(name).environment ?? {};
  const entries = Array.isArray(env)
    ? env.map((line) => [line.split("=", 1)[0]!, line.slice(line.indexOf("=") + 1)])
    : Object.entries(env).map(([key, value]) => [key, String(value)]);
  return Object.fromEntries(entries);
}

/** Container port → published host port, from the short ("[ip:]host:container[/proto]") or long syntax. */
function publishedPorts(name: string): Map<string, string | undefined> {
  const ports = new Map<string, string | undefined>();
  for (const port of service(name).ports ?? []) {
    if (typeof port === "object") {
      ports.set(String(port.target), port.published === undefined ? undefined : String(port.published));
    } else {
      const parts = String(port).replace(/\/(tcp|udp)$/, "").split(":");
      ports.set(parts.at(-1)!, parts.length > 1 ? parts.at(-2) : undefined);
    }
  }
  return ports;
}

/** The service a URL points at, checked to exist in the file, and the port it uses. */
function target(url: string): { host: string; port: string } {
  const { hostname, port } = new URL(url);
  assert.ok(compose.services[hostname], `${url} names no service of docker-compose.yml`);
  return { host: hostname, port };
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message ?? ""} ${JSON.stringify(error.params)}`).join("\n");
}

describe("docker-compose.yml", () => {
  const schemaMissing = existsSync(COMPOSE_SCHEMA) ? false : `no Compose schema at ${COMPOSE_SCHEMA.pathname}`;
  if (schemaMissing) console.log(`compose schema validation skipped: ${schemaMissing}`);

  it("compose - the file is valid against the Compose Specification schema", { skip: schemaMissing }, () => {
    // The schema declares draft-07 under an https URI Ajv does not know: Ajv's default
    // draft-07 dialect is the right one, the meta-schema check is left out.
    const ajv = new Ajv({ strict: false, validateSchema: false, allErrors: true });
    const validate = ajv.compile(JSON.parse(readFileSync(COMPOSE_SCHEMA, "utf8")) as object);
    assert.ok(validate(compose), `docker-compose.yml breaks the Compose schema:\n${describeErrors(validate.errors)}`);
    // The schema really checks services: a misspelled key is refused.
    const misspelled = { ...compose, services: { ...compose.services, gateway: { ...service("gateway"), imagee: "x" } } };
    assert.equal(validate(misspelled), false, "the schema accepted a service key Compose does not know");
  });

  it("compose - Jaeger v2 runs with its UI published on 16686", () => {
    assert.match(service("jaeger").image ?? "", /^jaegertracing\/jaeger:2\.\d+\.\d+$/);
    const ports = publishedPorts("jaeger");
    assert.ok(ports.get("16686"), `jaeger does not publish its UI port 16686: ${JSON.stringify(service("jaeger").ports)}`);
  });

  it("compose - every service exports its traces to Jaeger over OTLP, under a name of its own", () => {
    const names = new Map<string, string>();
    for (const name of FLEET) {
      const env = environment(name);
      const endpoint = env["OTEL_EXPORTER_OTLP_ENDPOINT"];
      assert.ok(endpoint, `${name} has no OTEL_EXPORTER_OTLP_ENDPOINT`);
      const protocol = env["OTEL_EXPORTER_OTLP_PROTOCOL"] ?? "http/protobuf";
      assert.ok(OTLP_PORTS[protocol], `${name}: OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not grpc, http/protobuf or http/json`);
      assert.deepEqual(target(endpoint), { host: "jaeger", port: OTLP_PORTS[protocol] }, `${name} sends ${protocol} to ${endpoint}`);

      const serviceName = env["OTEL_SERVICE_NAME"];
      assert.ok(serviceName, `${name} has no OTEL_SERVICE_NAME`);
      assert.equal(names.get(serviceName), undefined, `${name} and ${names.get(serviceName)} share OTEL_SERVICE_NAME ${serviceName}`);
      names.set(serviceName, name);

      const dependsOn = service(name).depends_on ?? [];
      const dependencies = Array.isArray(dependsOn) ? dependsOn : Object.keys(dependsOn);
      assert.ok(dependencies.includes("jaeger"), `${name} does not depend on jaeger`);
    }
  });

  it("compose - the embedding-router keeps its tool index in the qdrant service", () => {
    assert.match(service("qdrant").image ?? "", /^qdrant\/qdrant:/);
    const url = environment("embedding-router")["QDRANT_URL"];
    assert.ok(url, "embedding-router has no QDRANT_URL");
    assert.deepEqual(target(url), { host: "qdrant", port: "6333" });
  });
});
