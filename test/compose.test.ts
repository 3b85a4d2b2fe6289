import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SERVICES } from "@switchyard/fleet";
import { compose, composeEnvironment, composeService } from "./compose-file.js";
import { composeValidator, describeErrors } from "./deploy-schemas.js";

// OTLP's standard ports: gRPC on 4317, HTTP (protobuf or JSON) on 4318.
const OTLP_PORTS: Record<string, string> = { grpc: "4317", "http/protobuf": "4318", "http/json": "4318" };

/** Container port → published host port, from the short syntax "[ip:]host:container[/proto]". */
function publishedPorts(name: string): Map<string, string | undefined> {
  const ports = new Map<string, string | undefined>();
  for (const port of composeService(name).ports ?? []) {
    const parts = port.replace(/\/(tcp|udp)$/, "").split(":");
    ports.set(parts.at(-1)!, parts.length > 1 ? parts.at(-2) : undefined);
  }
  return ports;
}

/** The service a URL points at, checked to exist in the file, and the port it uses. */
function target(url: string): { host: string; port: string } {
  const { hostname, port } = new URL(url);
  assert.ok(compose.services[hostname], `${url} names no service of docker-compose.yml`);
  return { host: hostname, port };
}

/** The named volume mounted at `path` in a service. */
function volumeAt(name: string, path: string): string | undefined {
  const mount = (composeService(name).volumes ?? []).find((volume) => volume.split(":")[1] === path);
  return mount?.split(":")[0];
}

describe("docker-compose.yml", () => {
  it("compose - the file is valid against the Compose Specification schema", () => {
    const validate = composeValidator();
    assert.ok(validate(compose), `docker-compose.yml breaks the Compose schema:\n${describeErrors(validate.errors)}`);
    // The schema really checks services: a misspelled key is refused.
    const misspelled = { ...compose, services: { ...compose.services, gateway: { ...composeService("gateway"), imagee: "x" } } };
    assert.equal(validate(misspelled), false, "the schema accepted a service key Compose does not know");
  });

  it("compose - each service is built from the one Dockerfile, checked for health, and waits for a healthy NATS", () => {
    for (const name of SERVICES) {
      const service = composeService(name);
      assert.deepEqual(service.build, { context: ".", dockerfile: "deploy/Dockerfile", args: { SERVICE: name } }, `${name} is built otherwise`);
      assert.match(service.healthcheck?.test.join(" ") ?? "", /\/readyz/, `${name} has no /readyz healthcheck`);
      assert.equal(service.depends_on?.["nats"]?.condition, "service_healthy", `${name} does not wait for a healthy NATS`);
      assert.equal(service.read_only, true, `${name}'s root filesystem is writable`);
      assert.deepEqual(service.cap_drop, ["ALL"], `${name} keeps Linux capabilities`);
    }
    assert.equal(composeService("embedding-router").depends_on?.["qdrant"]?.condition, "service_healthy");
  });

  it("compose - NATS keeps JetStream and Qdrant its index on named volumes", () => {
    const nats = composeService("nats");
    assert.match(nats.image ?? "", /^nats:2\.\d+/);
    assert.match(nats.healthcheck?.test.join(" ") ?? "", /js-enabled-only/);
    const natsVolume = volumeAt("nats", "/data");
    assert.ok(natsVolume && compose.volumes && natsVolume in compose.volumes, "nats has no named volume at /data");
    assert.ok(String((nats as { command?: string[] }).command).includes("--jetstream"), "nats runs without JetStream");
    const qdrantVolume = volumeAt("qdrant", "/qdrant/storage");
    assert.ok(qdrantVolume && compose.volumes && qdrantVolume in compose.volumes, "qdrant has no named volume at /qdrant/storage");
    assert.ok(volumeAt("embedding-router", "/data"), "the router's embedded index is not kept on a volume");
    assert.ok(volumeAt("executor", "/data"), "the MCP servers' data is not kept on a volume");
  });

  it("compose - the gateway publishes its HTTP and gRPC ports", () => {
    const ports = publishedPorts("gateway");
    assert.ok(ports.get("8080") && ports.get("50051"), `gateway ports: ${JSON.stringify(composeService("gateway").ports)}`);
  });

  it("compose - Jaeger v2 runs with its UI published on 16686", () => {
    assert.match(composeService("jaeger").image ?? "", /^jaegertracing\/jaeger:2\.\d+\.\d+$/);
    assert.ok(publishedPorts("jaeger").get("16686"), `jaeger does not publish its UI port 16686: ${JSON.stringify(composeService("jaeger").ports)}`);
  });

  it("compose - every service exports its traces to Jaeger over OTLP, under a name of its own; an empty endpoint in .env turns it off", () => {
    const names = new Map<string, string>();
    for (const name of SERVICES) {
      const env = composeEnvironment(name);
      const endpoint = env["OTEL_EXPORTER_OTLP_ENDPOINT"];
      assert.ok(endpoint, `${name} has no OTEL_EXPORTER_OTLP_ENDPOINT`);
      const protocol = env["OTEL_EXPORTER_OTLP_PROTOCOL"] ?? "http/protobuf";
      assert.ok(OTLP_PORTS[protocol], `${name}: OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not grpc, http/protobuf or http/json`);
      assert.deepEqual(target(endpoint), { host: "jaeger", port: OTLP_PORTS[protocol] }, `${name} sends ${protocol} to ${endpoint}`);

      const serviceName = env["OTEL_SERVICE_NAME"];
      assert.ok(serviceName, `${name} has no OTEL_SERVICE_NAME`);
      assert.equal(names.get(serviceName), undefined, `${name} and ${names.get(serviceName)} share OTEL_SERVICE_NAME ${serviceName}`);
      names.set(serviceName, name);
      assert.ok(composeService(name).depends_on?.["jaeger"], `${name} does not depend on jaeger`);

      assert.equal(composeEnvironment(name, { OTEL_EXPORTER_OTLP_ENDPOINT: "" })["OTEL_EXPORTER_OTLP_ENDPOINT"], "", `${name} ignores .env's endpoint`);
    }
  });

  it("compose - the embedding-router keeps its tool index in the qdrant service; an empty QDRANT_URL in .env switches to the embedded index", () => {
    assert.match(composeService("qdrant").image ?? "", /^qdrant\/qdrant:/);
    const url = composeEnvironment("embedding-router")["QDRANT_URL"];
    assert.ok(url, "embedding-router has no QDRANT_URL");
    assert.deepEqual(target(url), { host: "qdrant", port: "6333" });
    assert.equal(composeEnvironment("embedding-router", { QDRANT_URL: "" })["QDRANT_URL"], "");
  });
});
