// deploy/k8s, checked without a cluster: every overlay and every combination of
// components renders with the real `kubectl kustomize`, every rendered object is
// valid against the Kubernetes (and KEDA) JSON schemas, and the rules a
// production deployment relies on hold in each render.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { PACKETS_STREAM } from "@switchyard/bus";
import { SERVICES } from "@switchyard/fleet";
import { KubernetesValidator } from "./deploy-schemas.js";
import type { KubernetesObject } from "./deploy-schemas.js";
import { COMPONENTS, K8S_DIR, kustomizeMissing, OVERLAYS, render } from "./kustomize.js";

/** The JetStream consumer each stage service works from (named after its stage). */
const CONSUMER_OF: Record<string, string> = { intent: "intent", "embedding-router": "route", selector: "select", reviewer: "review", executor: "execute" };
/** Autoscalers: one or the other on a Deployment, never both. */
const SCALERS = ["hpa", "keda"];

interface Container {
  name: string;
  ports?: { name?: string; containerPort: number }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }[];
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; capabilities?: { drop?: string[] } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  lifecycle?: { preStop?: { sleep?: { seconds: number } } };
}
interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean };
  containers: Container[];
  volumes?: { name: string; configMap?: { name: string } }[];
}
type Workload = KubernetesObject & { spec: { replicas?: number; template: { metadata: { labels: Record<string, string> }; spec: PodSpec } } };
interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

function matches(selector: LabelSelector, labels: Record<string, string>): boolean {
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpressions = (selector.matchExpressions ?? []).every((expression) => {
    const value = labels[expression.key];
    if (expression.operator === "In") return value !== undefined && (expression.values ?? []).includes(value);
    if (expression.operator === "NotIn") return value === undefined || !(expression.values ?? []).includes(value);
    if (expression.operator === "Exists") return value !== undefined;
    return value === undefined;
  });
  return byLabels && byExpressions;
}

/** Every rule a render breaks, as sentences. */
function problems(objects: KubernetesObject[], validator: KubernetesValidator): string[] {
  const found: string[] = [];
  const of = <T extends KubernetesObject>(kind: string) => objects.filter((object) => object.kind === kind) as T[];
  const configMaps = of<KubernetesObject & { data?: Record<string, string> }>("ConfigMap");
  const configMap = (name: string) => configMaps.find((object) => object.metadata.name === name);
  const workloads = [...of<Workload>("Deployment"), ...of<Workload>("StatefulSet")];
  const ours = of<Workload>("Deployment").filter((object) => object.metadata.labels?.["app.kubernetes.io/part-of"] === "switchyard");

  for (const object of objects) {
    const errors = validator.errors(object);
    if (errors) found.push(`${object.kind} ${object.metadata.name} breaks its schema:\n${errors}`);
  }
  if (of("Secret").length > 0) found.push("a Secret is committed; secrets are referenced, never rendered");
  for (const name of SERVICES) {
    if (!ours.some((object) => object.metadata.name === name)) found.push(`no Deployment ${name}`);
    const pdb = of<KubernetesObject & { spec: { selector: LabelSelector } }>("PodDisruptionBudget").find((object) =>
      matches(object.spec.selector, { "app.kubernetes.io/name": name }),
    );
    if (!pdb) found.push(`no PodDisruptionBudget for ${name}`);
  }

  // Pods: non-root, read-only root filesystem, no capabilities, bounded resources, probes.
  for (const workload of workloads) {
    const pod = workload.spec.template.spec;
    const where = `${workload.kind} ${workload.metadata.name}`;
    if (pod.securityContext?.runAsNonRoot !== true) found.push(`${where} may run as root`);
    for (const container of pod.containers) {
      const security = container.securityContext ?? {};
      if (security.readOnlyRootFilesystem !== true) found.push(`${where}: ${container.name}'s root filesystem is writable`);
      if (security.allowPrivilegeEscalation !== false) found.push(`${where}: ${container.name} may escalate privileges`);
      if (!security.capabilities?.drop?.includes("ALL")) found.push(`${where}: ${container.name} keeps Linux capabilities`);
      for (const bound of ["requests", "limits"] as const) {
        for (const resource of ["cpu", "memory"]) {
          if (!container.resources?.[bound]?.[resource]) found.push(`${where}: ${container.name} has no ${resource} ${bound}`);
        }
      }
      if (!container.livenessProbe || !container.readinessProbe) found.push(`${where}: ${container.name} lacks a liveness or readiness probe`);
      for (const ref of container.envFrom ?? []) {
        if (ref.configMapRef && !configMap(ref.configMapRef.name)) found.push(`${where} reads a missing ConfigMap ${ref.configMapRef.name}`);
        if (ref.secretRef) found.push(`${where} takes a whole Secret; name each key it needs`);
      }
      for (const variable of container.env ?? []) {
        const secret = variable.valueFrom?.secretKeyRef;
        // One Secret holds every credential, each under the name of the variable that reads it.
        if (secret && secret.name !== "switchyard-secrets") found.push(`${where}: ${variable.name} comes from ${secret.name}, not switchyard-secrets`);
      }
    }
    for (const volume of pod.volumes ?? []) {
      if (volume.configMap && !configMap(volume.configMap.name)) found.push(`${where} mounts a missing ConfigMap ${volume.configMap.name}`);
    }
  }

  // Our six: their own identity, /healthz and /readyz, and time to drain.
  const accounts = of("ServiceAccount").map((object) => object.metadata.name);
  for (const workload of ours) {
    const pod = workload.spec.template.spec;
    const container = pod.containers[0]!;
    const where = `Deployment ${workload.metadata.name}`;
    if (!pod.serviceAccountName || !accounts.includes(pod.serviceAccountName)) found.push(`${where} has no ServiceAccount of its own`);
    if (pod.automountServiceAccountToken !== false) found.push(`${where} mounts a Kubernetes API token it never uses`);
    const ports = (container.ports ?? []).map((port) => port.name);
    for (const [probe, path] of [
      ["livenessProbe", "/healthz"],
      ["readinessProbe", "/readyz"],
    ] as const) {
      const get = container[probe]?.httpGet;
      if (get?.path !== path || !ports.includes(String(get.port))) found.push(`${where}: ${probe} is not GET ${path} on a declared port`);
    }
    // A drain waits for work in flight, each piece cut by a *_TIMEOUT_MS (a model call
    // retried LLM_MAX_RETRIES times), after the preStop pause; the grace period must outlast it.
    const env: Record<string, string> = Object.assign({}, ...(container.envFrom ?? []).map((ref) => configMap(ref.configMapRef?.name ?? "")?.data ?? {}));
    const retries = Number(env["LLM_MAX_RETRIES"] ?? 0);
    const longestMs = Math.max(
      ...Object.entries(env)
        .filter(([name]) => name.endsWith("_TIMEOUT_MS"))
        .map(([name, value]) => Number(value) * (name.startsWith("LLM_") ? retries + 1 : 1)),
    );
    const drainMs = longestMs + (container.lifecycle?.preStop?.sleep?.seconds ?? 0) * 1000;
    const graceMs = (pod.terminationGracePeriodSeconds ?? 30) * 1000;
    if (!(graceMs > drainMs)) found.push(`${where}: terminationGracePeriodSeconds ${graceMs / 1000} s does not outlast its drain (${drainMs} ms)`);
  }

  // A Service only where something listens: it selects pods and names ports they declare.
  for (const service of of<KubernetesObject & { spec: { selector: Record<string, string>; ports: { targetPort: string | number }[] } }>("Service")) {
    const target = workloads.find((workload) => matches({ matchLabels: service.spec.selector }, workload.spec.template.metadata.labels));
    if (!target) {
      found.push(`Service ${service.metadata.name} selects no pods`);
      continue;
    }
    const declared = target.spec.template.spec.containers.flatMap((container) => (container.ports ?? []).flatMap((port) => [port.name, port.containerPort]));
    for (const port of service.spec.ports) {
      if (!declared.includes(port.targetPort)) found.push(`Service ${service.metadata.name} targets ${port.targetPort}, which its pods do not declare`);
    }
  }
  for (const name of SERVICES.filter((name) => name !== "gateway")) {
    if (of("Service").some((service) => service.metadata.name === name)) found.push(`${name} has a Service but takes no requests`);
  }

  // Autoscaling: each target exists, none has two autoscalers or a fixed replica count.
  type Scaler = KubernetesObject & { spec: { scaleTargetRef: { name: string }; triggers?: { type: string; metadata: Record<string, string> }[] } };
  const scalers = [...of<Scaler>("HorizontalPodAutoscaler"), ...of<Scaler>("ScaledObject")];
  const targets = scalers.map((scaler) => scaler.spec.scaleTargetRef.name);
  for (const target of new Set(targets)) {
    const deployment = ours.find((object) => object.metadata.name === target);
    if (!deployment) found.push(`an autoscaler targets ${target}, which is not a Deployment here`);
    else if (deployment.spec.replicas !== undefined) found.push(`Deployment ${target} is autoscaled but fixes replicas: ${deployment.spec.replicas}`);
    if (targets.filter((name) => name === target).length > 1) found.push(`Deployment ${target} has two autoscalers`);
  }
  const namespace = objects.find((object) => object.metadata.namespace)?.metadata.namespace;
  for (const scaledObject of of<Scaler>("ScaledObject")) {
    const consumer = CONSUMER_OF[scaledObject.spec.scaleTargetRef.name];
    if (!consumer) continue;
    const trigger = scaledObject.spec.triggers?.find((candidate) => candidate.type === "nats-jetstream");
    if (trigger?.metadata["stream"] !== PACKETS_STREAM || trigger.metadata["consumer"] !== consumer) {
      found.push(`ScaledObject ${scaledObject.metadata.name} does not scale on ${PACKETS_STREAM}/${consumer}'s pending packets`);
    } else if (namespace && !trigger.metadata["natsServerMonitoringEndpoint"]?.startsWith(`nats.${namespace}.svc`)) {
      found.push(`ScaledObject ${scaledObject.metadata.name} reads NATS outside the namespace ${namespace}`);
    }
  }

  // Network policies, when present: each service is denied by default, and reaches NATS.
  type Policy = KubernetesObject & {
    spec: { podSelector: LabelSelector; policyTypes: string[]; ingress?: unknown[]; egress?: { to?: { podSelector?: LabelSelector }[]; ports?: { port: number | string }[] }[] };
  };
  const policies = of<Policy>("NetworkPolicy");
  if (policies.length > 0) {
    for (const workload of ours) {
      const labels = workload.spec.template.metadata.labels;
      const selecting = policies.filter((policy) => matches(policy.spec.podSelector, labels));
      const denied = selecting.some((policy) => policy.spec.policyTypes.includes("Ingress") && policy.spec.policyTypes.includes("Egress") && !policy.spec.ingress && !policy.spec.egress);
      const toNats = selecting.some((policy) =>
        (policy.spec.egress ?? []).some(
          (rule) => (rule.to ?? []).some((peer) => peer.podSelector && matches(peer.podSelector, { "app.kubernetes.io/name": "nats" })) && (rule.ports ?? []).some((port) => port.port === 4222),
        ),
      );
      if (!denied) found.push(`NetworkPolicies leave ${workload.metadata.name} open by default`);
      if (!toNats) found.push(`NetworkPolicies keep ${workload.metadata.name} from NATS`);
    }
  }
  return found;
}

/** The components an overlay already has. */
function componentsOf(root: string): string[] {
  const kustomization = parse(readFileSync(join(K8S_DIR, root, "kustomization.yaml"), "utf8")) as { components?: string[] };
  return (kustomization.components ?? []).map((path) => path.split("/").at(-1)!);
}

/** Every set of the components `root` lacks, never with both autoscalers. */
function combinations(root: string): string[][] {
  const present = componentsOf(root);
  const free = COMPONENTS.filter((name) => !present.includes(name));
  const sets: string[][] = [];
  for (let mask = 0; mask < 2 ** free.length; mask++) {
    const set = free.filter((_, bit) => mask & (1 << bit));
    if ([...set, ...present].filter((name) => SCALERS.includes(name)).length <= 1) sets.push(set);
  }
  return sets;
}

describe("deploy/k8s", () => {
  const skip = kustomizeMissing();
  if (skip) console.log(`Kubernetes manifest validation skipped: ${skip}`);
  const validator = skip ? undefined : new KubernetesValidator();

  for (const root of ["base", ...OVERLAYS.map((name) => `overlays/${name}`)]) {
    it(`k8s - ${root}, alone and with every combination of the components it lacks, renders valid objects that keep the deploy rules`, { skip }, () => {
      const sets = combinations(root);
      const failures: string[] = [];
      for (const components of sets) {
        const found = problems(render(root, components), validator!);
        if (found.length > 0) failures.push(`${root} + [${components.join(", ")}]:\n  ${found.join("\n  ")}`);
      }
      assert.deepEqual(failures, [], `${failures.length} of ${sets.length} renders break rules`);
    });
  }

  it("k8s - the rules catch what they are for: a writable root, a fixed replica count under an autoscaler, a missing ConfigMap", { skip }, () => {
    const objects = render("base", ["hpa"]);
    const selector = objects.find((object) => object.kind === "Deployment" && object.metadata.name === "selector") as Workload;
    selector.spec.replicas = 3;
    selector.spec.template.spec.containers[0]!.securityContext!.readOnlyRootFilesystem = false;
    selector.spec.template.spec.containers[0]!.envFrom!.push({ configMapRef: { name: "nowhere" } });
    const found = problems(objects, validator!);
    assert.ok(found.some((line) => line.includes("selector's root filesystem is writable")), found.join("\n"));
    assert.ok(found.some((line) => line.includes("selector is autoscaled but fixes replicas")), found.join("\n"));
    assert.ok(found.some((line) => line.includes("missing ConfigMap nowhere")), found.join("\n"));
  });

  it("k8s - a misspelled field is refused by the strict schemas", { skip }, () => {
    const [deployment] = render("base").filter((object) => object.kind === "Deployment");
    const misspelled = { ...deployment!, spec: { ...(deployment!["spec"] as object), replicass: 2 } };
    assert.match(validator!.errors(misspelled), /additionalProperty|must NOT have additional properties/);
  });
});
