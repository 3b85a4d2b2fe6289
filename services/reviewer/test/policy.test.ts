import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ToolDefinition_SideEffect } from "@switchyard/packet";
import { toolDefinition } from "@switchyard/test-fixtures";
import { defaultConfig } from "../src/config.js";
import { decidePolicy, effectiveSideEffect, trustedTools } from "../src/policy.js";
import type { PolicyAction, PolicyConfig } from "../src/policy.js";

const { READ, WRITE, EXECUTE } = ToolDefinition_SideEffect;
const off: PolicyConfig = { ALLOW_WRITE_TOOLS: false, ALLOW_EXECUTE_TOOLS: false, TRUSTED_TOOLS: "" };

const rows: { name: string; sideEffect: ToolDefinition_SideEffect; tool: string; config: Partial<PolicyConfig>; action: PolicyAction; reason: RegExp }[] = [
  { name: "a read tool runs", sideEffect: READ, tool: "filesystem.read_text_file", config: {}, action: "execute", reason: /only reads/ },
  { name: "a read tool runs whatever the switches", sideEffect: READ, tool: "filesystem.read_text_file", config: { ALLOW_WRITE_TOOLS: true, ALLOW_EXECUTE_TOOLS: true }, action: "execute", reason: /only reads/ },
  { name: "a write tool is dry-run by default", sideEffect: WRITE, tool: "filesystem.write_file", config: {}, action: "dry-run", reason: /ALLOW_WRITE_TOOLS is off/ },
  { name: "a trusted write tool is still dry-run while writes are off", sideEffect: WRITE, tool: "filesystem.write_file", config: { TRUSTED_TOOLS: "filesystem.write_file" }, action: "dry-run", reason: /ALLOW_WRITE_TOOLS is off/ },
  { name: "ALLOW_EXECUTE_TOOLS does not allow writes", sideEffect: WRITE, tool: "filesystem.write_file", config: { ALLOW_EXECUTE_TOOLS: true }, action: "dry-run", reason: /ALLOW_WRITE_TOOLS is off/ },
  { name: "an allowed write tool waits for approval", sideEffect: WRITE, tool: "filesystem.write_file", config: { ALLOW_WRITE_TOOLS: true }, action: "await-approval", reason: /not in TRUSTED_TOOLS/ },
  { name: "an allowed, trusted write tool runs", sideEffect: WRITE, tool: "filesystem.write_file", config: { ALLOW_WRITE_TOOLS: true, TRUSTED_TOOLS: "memory.create_entities, filesystem.write_file" }, action: "execute", reason: /in TRUSTED_TOOLS/ },
  { name: "trust is by exact catalog name", sideEffect: WRITE, tool: "filesystem.write_file", config: { ALLOW_WRITE_TOOLS: true, TRUSTED_TOOLS: "write_file,filesystem.*" }, action: "await-approval", reason: /not in TRUSTED_TOOLS/ },
  { name: "an execute tool is dry-run by default", sideEffect: EXECUTE, tool: "shell.run", config: {}, action: "dry-run", reason: /ALLOW_EXECUTE_TOOLS is off/ },
  { name: "ALLOW_WRITE_TOOLS does not allow execution", sideEffect: EXECUTE, tool: "shell.run", config: { ALLOW_WRITE_TOOLS: true, TRUSTED_TOOLS: "shell.run" }, action: "dry-run", reason: /ALLOW_EXECUTE_TOOLS is off/ },
  { name: "an allowed execute tool waits for approval", sideEffect: EXECUTE, tool: "shell.run", config: { ALLOW_EXECUTE_TOOLS: true }, action: "await-approval", reason: /not in TRUSTED_TOOLS/ },
  { name: "an allowed, trusted execute tool runs", sideEffect: EXECUTE, tool: "shell.run", config: { ALLOW_EXECUTE_TOOLS: true, TRUSTED_TOOLS: "shell.run" }, action: "execute", reason: /in TRUSTED_TOOLS/ },
  { name: "an unknown side-effect class is treated as execute", sideEffect: 7 as ToolDefinition_SideEffect, tool: "x.y", config: { ALLOW_WRITE_TOOLS: true }, action: "dry-run", reason: /ALLOW_EXECUTE_TOOLS is off/ },
];

describe("reviewer - decidePolicy", () => {
  for (const row of rows) {
    it(`reviewer - policy: ${row.name}`, () => {
      const decision = decidePolicy(row.sideEffect, row.tool, { ...off, ...row.config });
      assert.equal(decision.action, row.action);
      assert.match(decision.reason, row.reason);
      assert.ok(decision.reason.includes(row.tool));
    });
  }

  it("reviewer - the default config dry-runs writes", () => {
    assert.equal(decidePolicy(WRITE, "filesystem.write_file", defaultConfig).action, "dry-run");
  });

  it("reviewer - TRUSTED_TOOLS is a comma-separated list", () => {
    assert.deepEqual(trustedTools({ TRUSTED_TOOLS: " filesystem.write_file, ,memory.create_entities " }), ["filesystem.write_file", "memory.create_entities"]);
    assert.deepEqual(trustedTools({ TRUSTED_TOOLS: "" }), []);
  });
});

describe("reviewer - effectiveSideEffect", () => {
  const cases: { name: string; tool: Parameters<typeof effectiveSideEffect>[0]; sideEffect: ToolDefinition_SideEffect; tightened: boolean }[] = [
    { name: "a read tool stays read", tool: toolDefinition("filesystem", "read_text_file"), sideEffect: READ, tightened: false },
    { name: "a write tool stays write", tool: toolDefinition("filesystem", "write_file"), sideEffect: WRITE, tightened: false },
    { name: "an unclassified delete tool is write", tool: { ...toolDefinition("memory", "delete_entities"), sideEffect: READ }, sideEffect: WRITE, tightened: true },
    { name: "an unclassified add tool is write", tool: { ...toolDefinition("memory", "add_observations"), sideEffect: READ }, sideEffect: WRITE, tightened: true },
    { name: "an unclassified run tool is execute", tool: { name: "shell.run_command", server: "shell", serverToolName: "run_command", sideEffect: READ }, sideEffect: EXECUTE, tightened: true },
    { name: "camelCase names are split", tool: { name: "tasks.deleteTask", server: "", serverToolName: "", sideEffect: READ }, sideEffect: WRITE, tightened: true },
    { name: "a name is never looser than the catalog", tool: { name: "shell.list_processes", server: "shell", serverToolName: "list_processes", sideEffect: EXECUTE }, sideEffect: EXECUTE, tightened: false },
    { name: "words inside other words do not count", tool: { name: "app.get_settings", server: "app", serverToolName: "get_settings", sideEffect: READ }, sideEffect: READ, tightened: false },
  ];
  for (const c of cases) {
    it(`reviewer - side effect: ${c.name}`, () => {
      assert.deepEqual(effectiveSideEffect(c.tool), { sideEffect: c.sideEffect, tightened: c.tightened });
    });
  }
});
