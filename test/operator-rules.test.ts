// The operators' files: Prometheus's config and alerting rules (checked and unit-tested by
// promtool) and the Grafana dashboard (its structure, its PromQL, and that every metric it
// and the rules name is one the code serves, so a renamed metric fails here).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { SERVICES } from "@switchyard/fleet";
import { Metrics } from "@switchyard/telemetry";
import { Type } from "typebox";
import type { Static } from "typebox";
import { Value } from "typebox/value";
import { parse } from "yaml";
import { composeEnvironment, composeService } from "./compose-file.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const PROMETHEUS_DIR = join(ROOT, "deploy/prometheus");
const RULES = join(PROMETHEUS_DIR, "rules/switchyard.rules.yml");
const RULES_TESTS = join(PROMETHEUS_DIR, "rules/switchyard.rules.test.yml");
const DASHBOARD = join(ROOT, "deploy/grafana/dashboards/switchyard.json");
const RUNBOOK = "docs/observability.md";

/** Prometheus's own checker (Debian: apt-get install prometheus); .ci/run installs it. */
const promtoolMissing = spawnSync("promtool", ["--version"], { stdio: "ignore" }).status === 0 ? false : "no promtool on PATH (apt-get install prometheus)";

/** Runs promtool; fails the test with its output when it does not exit 0. */
function promtool(...args: string[]): string {
  const run = spawnSync("promtool", args, { encoding: "utf8" });
  assert.equal(run.status, 0, `promtool ${args.join(" ")}:\n${run.stdout}${run.stderr}`);
  return run.stdout;
}

/** The fields Grafana needs of a provisioned dashboard and of the panels it draws from Prometheus. */
const Target = Type.Object({ refId: Type.String({ minLength: 1 }), expr: Type.String({ minLength: 1 }), legendFormat: Type.Optional(Type.String()) });
const GridPos = Type.Object({ h: Type.Integer({ minimum: 1 }), w: Type.Integer({ minimum: 1, maximum: 24 }), x: Type.Integer({ minimum: 0, maximum: 23 }), y: Type.Integer({ minimum: 0 }) });
const Datasource = Type.Object({ type: Type.Literal("prometheus"), uid: Type.String({ minLength: 1 }) });
const Panel = Type.Union([
  Type.Object({ id: Type.Integer(), type: Type.Literal("row"), title: Type.String(), gridPos: GridPos, collapsed: Type.Boolean(), panels: Type.Array(Type.Unknown()) }),
  Type.Object({
    id: Type.Integer(),
    type: Type.Union([Type.Literal("timeseries"), Type.Literal("stat")]),
    title: Type.String({ minLength: 1 }),
    description: Type.String({ minLength: 1 }),
    gridPos: GridPos,
    datasource: Datasource,
    targets: Type.Array(Target, { minItems: 1 }),
    fieldConfig: Type.Object({ defaults: Type.Record(Type.String(), Type.Unknown()), overrides: Type.Array(Type.Unknown()) }),
    options: Type.Record(Type.String(), Type.Unknown()),
  }),
]);
const Dashboard = Type.Object({
  uid: Type.String({ pattern: "^[a-zA-Z0-9_-]{1,40}$" }),
  title: Type.String({ minLength: 1 }),
  schemaVersion: Type.Integer({ minimum: 36 }),
  version: Type.Integer(),
  time: Type.Object({ from: Type.String(), to: Type.String() }),
  templating: Type.Object({ list: Type.Array(Type.Unknown()) }),
  annotations: Type.Object({ list: Type.Array(Type.Unknown()) }),
  panels: Type.Array(Panel, { minItems: 1 }),
});
type Dashboard = Static<typeof Dashboard>;

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, "utf8")) as Dashboard;
const rules = (parse(readFileSync(RULES, "utf8")) as { groups: { rules: AlertRule[] }[] }).groups.flatMap((group) => group.rules);
const dashboardExprs = dashboard.panels.flatMap((panel) => ("targets" in panel ? panel.targets.map((target) => ({ panel: panel.title, expr: target.expr })) : []));

/** Grafana's own variables, as PromQL sees them once Grafana has put in their values. */
function withGrafanaVariables(expr: string): string {
  return expr.replace(/\$__rate_interval|\$__interval|\$__range/g, "5m");
}

/** The metric names an expression reads: `switchyard_…` series (a histogram's by its base name) and Prometheus's `up`. */
function metricNames(expr: string): string[] {
  const names = expr.match(/\bswitchyard_[a-z_]+|\bup\{/g) ?? [];
  return names.map((name) => name.replace(/\{$/, "").replace(/_(bucket|count|sum)$/, ""));
}

describe("operator rules - Prometheus config and alerting rules, the Grafana dashboard", () => {
  const tmp = mkdtempSync(join(tmpdir(), "switchyard-operator-rules-"));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it("operator rules - promtool check config accepts prometheus.yml, which scrapes every service's /metrics port", { skip: promtoolMissing }, () => {
    promtool("check", "config", join(PROMETHEUS_DIR, "prometheus.yml"));
    const config = parse(readFileSync(join(PROMETHEUS_DIR, "prometheus.yml"), "utf8")) as { scrape_configs: { static_configs: { targets: string[] }[] }[] };
    const targets = new Set(config.scrape_configs.flatMap((job) => job.static_configs.flatMap((static_) => static_.targets)));
    for (const service of SERVICES) {
      const port = service === "gateway" ? "8080" : composeEnvironment(service)["HEALTH_PORT"];
      assert.ok(targets.has(`${service}:${port}`), `prometheus.yml does not scrape ${service}:${port}`);
    }
    assert.deepEqual(composeService("prometheus").volumes?.[0], "./deploy/prometheus:/etc/prometheus:ro", "compose mounts another config");
  });

  it("operator rules - promtool check rules accepts the rules, and promtool test rules passes their unit tests", { skip: promtoolMissing }, () => {
    assert.match(promtool("check", "rules", RULES), /SUCCESS: 5 rules found/);
    assert.match(promtool("test", "rules", RULES_TESTS), /SUCCESS/);
  });

  it("operator rules - every alert has a severity, a summary, a description and a runbook section that exists", () => {
    const runbook = readFileSync(join(ROOT, RUNBOOK), "utf8");
    const anchors = new Set([...runbook.matchAll(/^#+ (.+)$/gm)].map((heading) => heading[1]!.toLowerCase().replace(/[^a-z0-9 -]/g, "").replace(/ /g, "-")));
    for (const rule of rules) {
      assert.match(rule.labels?.["severity"] ?? "", /^(warning|critical)$/, rule.alert);
      assert.ok(rule.annotations?.["summary"] && rule.annotations["description"], `${rule.alert} lacks a summary or description`);
      const [path, anchor] = (rule.annotations["runbook_url"] ?? "").split("#");
      assert.equal(path, RUNBOOK, `${rule.alert}'s runbook`);
      assert.ok(anchors.has(anchor ?? ""), `${RUNBOOK} has no section #${anchor} for ${rule.alert}`);
    }
    // What issue 39 asks to be alerted on.
    assert.deepEqual(
      rules.map((rule) => rule.alert).sort(),
      ["SwitchyardApprovalsExpiredUnanswered", "SwitchyardDependencyDown", "SwitchyardPacketsFailing", "SwitchyardServiceDown", "SwitchyardStageNotConsumed"],
    );
  });

  it("operator rules - the dashboard has the fields Grafana needs; its panels use the provisioned data source and do not overlap", () => {
    const errors = [...Value.Errors(Dashboard, dashboard)].map((error) => `${error.instancePath} ${error.message}`);
    assert.deepEqual(errors, [], "the dashboard breaks its schema");
    const source = parse(readFileSync(join(ROOT, "deploy/grafana/provisioning/datasources/prometheus.yml"), "utf8")) as { datasources: { uid: string; url: string }[] };
    assert.equal(source.datasources[0]?.url, "http://prometheus:9090", "the data source is not the compose file's prometheus");
    const taken = new Set<string>();
    for (const panel of dashboard.panels) {
      if ("datasource" in panel) assert.equal(panel.datasource.uid, source.datasources[0]?.uid, `${panel.title} names another data source`);
      const { x, y, w, h } = panel.gridPos;
      assert.ok(x + w <= 24, `${panel.title} is wider than the grid`);
      for (let row = y; row < y + h; row += 1) {
        for (let column = x; column < x + w; column += 1) {
          assert.ok(!taken.has(`${row}:${column}`), `${panel.title} overlaps another panel at row ${row}, column ${column}`);
          taken.add(`${row}:${column}`);
        }
      }
    }
    assert.equal(new Set(dashboard.panels.map((panel) => panel.id)).size, dashboard.panels.length, "panel ids repeat");
  });

  it("operator rules - the compose file's Grafana loads the dashboard folder the provider reads", () => {
    const provider = parse(readFileSync(join(ROOT, "deploy/grafana/provisioning/dashboards/switchyard.yml"), "utf8")) as { providers: { options: { path: string } }[] };
    const mounts = composeService("grafana").volumes ?? [];
    assert.ok(mounts.includes(`./deploy/grafana/dashboards:${provider.providers[0]!.options.path}:ro`), `grafana mounts: ${mounts.join(", ")}`);
    assert.ok(mounts.includes("./deploy/grafana/provisioning:/etc/grafana/provisioning:ro"));
  });

  it("operator rules - every PromQL expression of the dashboard parses (promtool check rules on them as recording rules)", { skip: promtoolMissing }, () => {
    const file = join(tmp, "dashboard-exprs.rules.yml");
    const recorded = dashboardExprs.map(({ expr }, i) => ({ record: `dashboard:expr_${i}`, expr: withGrafanaVariables(expr) }));
    writeFileSync(file, JSON.stringify({ groups: [{ name: "dashboard", rules: recorded }] }));
    assert.match(promtool("check", "rules", file), new RegExp(`SUCCESS: ${recorded.length} rules found`));
  });

  it("operator rules - every metric the dashboard and the rules read is one the services serve", async () => {
    const served = new Set(((await new Metrics().registry.getMetricsAsJSON()) as { name: string }[]).map((metric) => metric.name));
    served.add("up"); // Prometheus's own, per scrape target
    const used = [...dashboardExprs, ...rules.map((rule) => ({ panel: rule.alert, expr: rule.expr }))];
    for (const { panel, expr } of used) {
      for (const name of metricNames(expr)) assert.ok(served.has(name), `${panel} reads ${name}, which no service serves`);
    }
    // What issue 39 asks the dashboard to show.
    const shown = new Set(dashboardExprs.flatMap(({ expr }) => metricNames(expr)));
    for (const name of [
      "switchyard_packets_finished_total",
      "switchyard_stage_duration_seconds",
      "switchyard_consumer_pending_messages",
      "switchyard_packets_waiting",
      "switchyard_fallbacks_total",
      "switchyard_dependency_up",
      "switchyard_mcp_call_errors_total",
    ]) {
      assert.ok(shown.has(name), `the dashboard does not show ${name}`);
    }
  });
});
