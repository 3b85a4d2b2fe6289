// What each container image would hold, proven without Docker: every service's
// production bundle is made by scripts/bundle-service.mjs, the very step
// deploy/Dockerfile runs, then the six bundles are started on their own (no
// workspace, no dev dependencies, no repository on PATH) and carry a packet
// through the real MCP filesystem server.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { SERVICE_NODE_OPTIONS, SERVICES } from "@switchyard/fleet";
import type { ServiceName } from "@switchyard/fleet";
import { fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const REPO_ROOT = fileURLToPath(new URL("../", import.meta.url));
const run = promisify(execFile);
/**
 * Build and lint tools, which a production image must not carry. (TypeScript
 * itself is in the router's: the Qdrant client declares it a peer dependency.)
 */
const DEV_TOOLS = ["tsx", "esbuild", "eslint", "typescript-eslint", "@bufbuild+buf"];

describe("service bundles", { skip: fleetSkipReason() }, () => {
  const root = mkdtempSync(join(tmpdir(), "switchyard-bundles-"));
  const bundles = Object.fromEntries(SERVICES.map((name) => [name, join(root, name)])) as Record<ServiceName, string>;

  before(async () => {
    // Two at a time: each is mostly file copying.
    for (let i = 0; i < SERVICES.length; i += 2) {
      await Promise.all(SERVICES.slice(i, i + 2).map((name) => run(process.execPath, ["scripts/bundle-service.mjs", name, bundles[name]], { cwd: REPO_ROOT })));
    }
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("bundles - each holds its dist and its production dependencies only, copied in, with no dev tool and no link back into the workspace", () => {
    for (const name of SERVICES) {
      const bundle = bundles[name];
      assert.ok(existsSync(join(bundle, "dist/main.js")), `${name}'s bundle has no dist/main.js`);
      const manifest = JSON.parse(readFileSync(join(REPO_ROOT, `services/${name}/package.json`), "utf8")) as {
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
      };
      for (const dependency of Object.keys(manifest.dependencies ?? {})) {
        assert.ok(existsSync(join(bundle, "node_modules", dependency)), `${name}'s bundle lacks its dependency ${dependency}`);
      }
      for (const dependency of Object.keys(manifest.devDependencies ?? {})) {
        if (dependency in (manifest.dependencies ?? {})) continue;
        assert.ok(!existsSync(join(bundle, "node_modules", dependency)), `${name}'s bundle carries its dev dependency ${dependency}`);
      }
      const installed = readdirSync(join(bundle, "node_modules/.pnpm"));
      for (const tool of DEV_TOOLS) assert.ok(!installed.some((entry) => entry.startsWith(`${tool}@`)), `${name}'s bundle carries ${tool}`);
      for (const workspacePackage of readdirSync(join(bundle, "node_modules/@switchyard"))) {
        const path = join(bundle, "node_modules/@switchyard", workspacePackage);
        assert.ok(realpathSync(path).startsWith(realpathSync(bundle)), `${name}'s @switchyard/${workspacePackage} links out of the bundle`);
        assert.ok(existsSync(join(path, "dist")), `${name}'s @switchyard/${workspacePackage} is not built`);
      }
    }
  });

  describe("started from the bundles alone", () => {
    let t: TestFleet;
    before(async () => {
      t = await startTestFleet({
        bundles,
        env: {
          NODE_ENV: "production",
          // Only Node itself and the system: the MCP servers must come from the executor's bundle.
          PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(":"),
        },
      });
    });
    after(() => t?.close());

    it("bundles - the six bundles carry a packet from the gateway through the executor's own MCP filesystem server", async () => {
      const { status, json: packet } = await t.post("/v1/packets", { message: "please read the file notes/todo.md" });
      assert.equal(status, 200, JSON.stringify(packet));
      assert.equal(packet.state, "COMPLETED", JSON.stringify(packet.reasoning));
      assert.equal(packet.toolRouting.executionStatus, "EXECUTED");
      assert.equal(packet.toolRouting.selectedTool.toolName, "filesystem.read_text_file");
      const content = readFileSync(join(t.workspace, "notes/todo.md"), "utf8");
      const result = packet.content.dataFields.find((field: { key: string }) => field.key === "tool_result");
      assert.ok(JSON.stringify(result?.value).includes(JSON.stringify(content).slice(1, -1)), "the file's real content is not in the packet");
      // Run as the image runs them: its CMD, V8 options and all.
      const cmd = dockerfileCmd();
      for (const name of SERVICES) {
        const spawnargs = t.fleet.processes.get(name)!.child.spawnargs;
        assert.deepEqual(spawnargs.slice(1), cmd.slice(1), `${name} did not run from its bundle as the image runs it`);
      }
    });
  });
});

// Needs no NATS, so it runs where the bundles' suite is skipped.
describe("service image command", () => {
  it("bundles - deploy/Dockerfile's CMD runs node with SERVICE_NODE_OPTIONS, as the fleet does", () => {
    assert.deepEqual(dockerfileCmd(), ["node", ...SERVICE_NODE_OPTIONS, "dist/main.js"], "deploy/Dockerfile's CMD and SERVICE_NODE_OPTIONS differ");
  });
});

/** deploy/Dockerfile's CMD, the exec form's JSON array. */
function dockerfileCmd(): string[] {
  return JSON.parse(/^CMD (.*)$/m.exec(readFileSync(join(REPO_ROOT, "deploy/Dockerfile"), "utf8"))![1]!) as string[];
}
