// The README's quick start, doors and "your tools" sections, run as a reader runs them:
// `pnpm start` with the settings the README's start lines give, then every command and
// script of those sections against that fleet, each checked for what the README says it
// does. So the README cannot drift from the product: a new block with no check here fails.
// The model upstreams are test doubles (scripted OpenAI- and Anthropic-compatible servers);
// the fleet, NATS, the MCP servers, curl, jq, the clients and the Inspector are real.
import { execFile, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import assert from "node:assert/strict";
import { freePort } from "@switchyard/local-nats";
import { startScriptedAnthropicServer, startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { ScriptedAnthropicServer, ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { parseServersConfig } from "../services/executor/src/servers-config.js";
import { eventually, fleetSkipReason } from "./harness.js";
import { ctrlC, freePortRun, REPO_ROOT, start } from "./start-script.js";
import type { Started } from "./start-script.js";

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
const SECTIONS = ["Quick start", "Doors", "Your tools"];
/** Where the README's scripts run: the fleet tests' package, whose node_modules has their clients. */
const TEST_DIR = fileURLToPath(new URL(".", import.meta.url));
const ANSWER = "Sunny in Paris, 21 °C.";

interface Block {
  section: string;
  lang: string;
  text: string;
  /** Its first line's number in README.md, for messages. */
  line: number;
}

/** Every fenced block of the sections a reader runs. */
function readmeBlocks(): Block[] {
  const blocks: Block[] = [];
  let section = "";
  let open: Block | undefined;
  README.split("\n").forEach((text, index) => {
    if (!open && text.startsWith("## ")) section = text.slice(3).trim();
    const fence = /^```(\w*)\s*$/.exec(text);
    if (fence && !open) open = { section, lang: fence[1]!, text: "", line: index + 2 };
    else if (fence && open) {
      if (SECTIONS.includes(open.section)) blocks.push(open);
      open = undefined;
    } else if (open) open.text += `${text}\n`;
  });
  return blocks;
}

/** A shell block's commands, a backslash-continued line joined, comments left out. */
function commandsOf(text: string): string[] {
  return text
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .map((line) => line.replace(/\s{2,}#.*$/, "").trim())
    .filter((line) => line && !line.startsWith("#"));
}

const START = /\bnpx --yes pnpm@10 (install|start|test)\b/;
/** `NAME=value` words before a start command: the settings the README starts the fleet with. */
function startSettings(command: string): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const word of command.slice(0, command.indexOf("npx")).trim().split(/\s+/).filter(Boolean)) {
    const [name, ...value] = word.split("=");
    assert.match(name!, /^[A-Z][A-Z0-9_]*$/, `a start line's word is a setting: ${command}`);
    // A reader puts their own key where the README writes "sk-…".
    settings[name!] = value.join("=").replace("…", "-the-readers-own");
  }
  return settings;
}

interface Ports {
  http: number;
  grpc: number;
  everything: number;
}

/** The README's addresses, moved to the ports this run's fleet and MCP server have. */
function onPorts(text: string, ports: Ports): string {
  return text
    .replace(/(localhost|127\.0\.0\.1):8080\b/g, `127.0.0.1:${ports.http}`)
    .replace(/\b50051\b/g, String(ports.grpc))
    .replace(/\b3001\b/g, String(ports.everything));
}

const json = (text: string): any => {
  try {
    return JSON.parse(text);
  } catch {
    assert.fail(`not JSON: ${text.slice(0, 500)}`);
  }
};

describe("README - every command of its quick start, doors and your-tools sections, against pnpm start's fleet", { skip: fleetSkipReason() ?? missingTool() }, () => {
  const blocks = readmeBlocks();
  const dataDir = mkdtempSync(join(tmpdir(), "switchyard-readme-"));
  const workspace = join(dataDir, "workspace");
  const scripts = mkdtempSync(join(TEST_DIR, ".readme-"));
  let ports: Ports;
  let fleet: Started;
  let openai: ScriptedOpenAIServer;
  let anthropic: ScriptedAnthropicServer;
  const background: number[] = [];
  let settings: Record<string, string> = {};

  before(async () => {
    cpSync(join(REPO_ROOT, "examples/workspace"), workspace, { recursive: true });
    openai = await startScriptedOpenAIServer({ chat: () => ({ content: ANSWER }), responses: () => ({ text: ANSWER }) });
    anthropic = await startScriptedAnthropicServer(() => ({ text: ANSWER }));
    const base = await freePortRun();
    ports = { http: base, grpc: await freePort(), everything: await freePort() };
    for (const block of blocks.filter((b) => b.lang === "sh")) {
      for (const command of commandsOf(block.text).filter((c) => START.test(c))) settings = { ...settings, ...startSettings(command) };
    }
    fleet = await start({
      ...settings,
      // The README's upstreams are the providers' hosts; this run's are the doubles.
      ...(settings["LLM_BASE_URL"] !== undefined ? { LLM_BASE_URL: openai.url } : {}),
      ...(settings["ANTHROPIC_API_KEY"] !== undefined ? { ANTHROPIC_BASE_URL: anthropic.url } : {}),
      HTTP_PORT: String(ports.http),
      GRPC_PORT: String(ports.grpc),
      NATS_URL: "",
      SWITCHYARD_DATA_DIR: dataDir,
      SWITCHYARD_WORKSPACE: workspace,
    });
  });

  after(async () => {
    for (const pid of background) killGroup(pid);
    if (fleet) assert.equal(await ctrlC(fleet), 0, fleet.output());
    await openai?.close();
    await anthropic?.close();
    rmSync(scripts, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** What each command or script must print, found by its text; every block needs one. */
  const checks: { what: RegExp; check: (output: string) => void | Promise<void> }[] = [
    {
      what: /v1\/packets -H .*please read the file notes\/todo\.md/,
      check: (output) => {
        const packet = json(output);
        assert.equal(packet.state, "COMPLETED", output);
        const shown = /"stateReason": "([^"]+)"/.exec(README)?.[1];
        assert.equal(packet.stateReason, shown, "the README's abridged answer says how it ended");
        assert.match(JSON.stringify(packet.content), /# To do/);
      },
    },
    {
      what: /v1\/route -H/,
      check: (output) => assert.equal(json(output).candidates[0]?.tool?.name, "filesystem.list_directory", output),
    },
    {
      what: /v1\/calls -H/,
      check: (output) => {
        const packet = json(output);
        assert.equal(packet.toolRouting.executionStatus, "EXECUTED", output);
        assert.match(JSON.stringify(packet.content), /todo\.md/);
      },
    },
    {
      what: /GrpcReflection/,
      check: (output) => assert.match(output, /^COMPLETED: done: filesystem\.read_text_file ran/, output),
    },
    {
      what: /StreamableHTTPClientTransport/,
      check: (output) => {
        assert.match(output, /filesystem_read_text_file/);
        assert.match(output, /# To do/);
      },
    },
    {
      what: /inspector.*--method tools\/list/,
      check: (output) => assert.ok(json(output).tools.some((tool: { name: string }) => tool.name === "filesystem_read_text_file"), output),
    },
    {
      what: /inspector.*--method tools\/call/,
      check: (output) => assert.match(json(output).content[0].text, /# To do/),
    },
    {
      what: /from "openai"/,
      check: (output) => {
        assert.equal(output.split(ANSWER).length - 1, 2, `the chat and the responses answers, as the upstream sent them:\n${output}`);
        const sent = [...openai.chatRequests.map((r) => r.authorization), ...openai.responsesRequests.map((r) => r.authorization)];
        assert.deepEqual(new Set(sent), new Set([`Bearer ${settings["LLM_API_KEY"]}`]), "the upstream got LLM_API_KEY, never the caller's key");
      },
    },
    {
      what: /from "@anthropic-ai\/sdk"/,
      check: (output) => {
        assert.match(output, new RegExp(ANSWER));
        assert.equal(anthropic.requests.at(-1)?.apiKey, settings["ANTHROPIC_API_KEY"]);
      },
    },
    {
      what: /v1\/servers -H/,
      check: (output) => {
        const answer = json(output);
        assert.equal(answer.server.name, "everything", output);
        assert.ok(answer.tools.some((tool: { name: string }) => tool.name === "everything.echo"), output);
      },
    },
    { what: /-X DELETE .*v1\/servers\/everything/, check: (output) => assert.equal(output, "") },
    { what: /^id=\$\(curl .*v1\/packets/, check: (output) => assert.equal(output, "") },
    {
      what: /v1\/packets\/\$id\/approve/,
      check: (output) => {
        assert.match(output, /done: filesystem\.write_file ran/);
        assert.equal(readFileSync(join(workspace, "notes/shopping.md"), "utf8"), "buy milk");
      },
    },
    {
      what: /v1\/tools\/filesystem\.get_file_info\/examples -H/,
      check: (output) => {
        const answer = json(output);
        assert.equal(answer.added, 2, output);
        assert.ok(answer.examples.includes("how big is notes/todo.md?"), output);
      },
    },
    { what: /^example=\$\(curl/, check: (output) => assert.equal(output, "") },
    {
      what: /-X DELETE .*\/examples\/\$example/,
      check: (output) => assert.equal(json(output).text, "how big is notes/todo.md?", output),
    },
  ];
  const checkOf = (text: string, block: Block) => {
    const found = checks.find(({ what }) => what.test(text));
    assert.ok(found, `README.md:${block.line}: no check in test/readme.test.ts says what this should do:\n${text}`);
    return found.check;
  };

  it("README - a front page a newcomer reads in ten minutes: at most 300 lines", () => {
    assert.ok(README.split("\n").length <= 301, `${README.split("\n").length - 1} lines: move reference into docs/`);
  });

  it("README - the quick start's two commands are what pnpm start and CI run", () => {
    const first = blocks.find((b) => b.section === "Quick start" && b.lang === "sh")!;
    assert.deepEqual(commandsOf(first.text), ["npx --yes pnpm@10 install && npx --yes pnpm@10 start", "npx --yes pnpm@10 test"]);
    assert.match(readFileSync(join(REPO_ROOT, ".ci/run"), "utf8"), /npx --yes pnpm@10 test/);
    const scriptsOfPackage = json(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).scripts;
    assert.equal(scriptsOfPackage.start, "pnpm build && node scripts/start.mjs", "this test starts the fleet as `pnpm start` does, after the suite's build");
  });

  it("README - the start banner names the upstream of each model door the README sets", () => {
    const banner = fleet.output();
    assert.match(banner, new RegExp(`/v1/chat/completions → ${openai.url}/chat/completions`));
    assert.match(banner, new RegExp(`/v1/responses → ${openai.url}/responses`));
    assert.match(banner, new RegExp(`/v1/messages → ${anthropic.url}/v1/messages`));
  });

  it("README - its switchyard.yaml example is a servers file the executor takes", () => {
    const yaml = blocks.filter((b) => b.lang === "yaml");
    assert.ok(yaml.length > 0);
    for (const block of yaml) {
      const config = parseServersConfig(block.text, `README.md:${block.line}`, { GITHUB_TOKEN: "ghp_example" });
      assert.ok(Object.keys(config.servers).length > 0, block.text);
    }
  });

  it("README - every command and script runs against the fleet and does what the README says", async () => {
    for (const block of blocks) {
      if (block.lang === "json" || block.lang === "yaml") continue;
      if (block.lang === "js") {
        const file = join(scripts, `readme-${block.line}.mjs`);
        writeFileSync(file, onPorts(block.text, ports));
        await checkOf(block.text, block)(await run(block, process.execPath, [file]));
        continue;
      }
      assert.equal(block.lang, "sh", `README.md:${block.line}: a block to run is sh or js`);
      if (block.text.startsWith("# in another terminal")) {
        background.push(runInBackground(onPorts(block.text, ports), ports.everything));
        // Up once its endpoint answers at all (a GET without a session is refused, which is enough).
        await eventually(() => fetch(`http://127.0.0.1:${ports.everything}/mcp`).then(() => true, () => undefined), 60_000, "the README's MCP server");
        continue;
      }
      const commands = commandsOf(block.text);
      if (commands.every((command) => START.test(command))) continue; // the fleet this test started
      const outputs = await runShell(commands.map((command) => onPorts(command, ports)), block);
      for (const [i, command] of commands.entries()) await checkOf(command, block)(outputs[i]!.trim());
    }
  });
});

const MARK = "@@readme-command-done@@";

/** Runs a README block's program (not blocking: the model doubles answer from this process); its output. */
async function run(block: Block, file: string, args: string[]): Promise<string> {
  try {
    return (await promisify(execFile)(file, args, { cwd: TEST_DIR, encoding: "utf8", timeout: 120_000 })).stdout;
  } catch (error) {
    const { code, stdout, stderr } = error as { code: unknown; stdout: string; stderr: string };
    assert.fail(`README.md:${block.line} failed (${String(code)}):\n${args.at(-1)}\n${stdout}\n${stderr}`);
  }
}

/** The block's commands in one bash, as a terminal would run them in turn; each one's output. */
async function runShell(commands: string[], block: Block): Promise<string[]> {
  const script = ["set -euo pipefail", ...commands.flatMap((command) => [command, `printf '\\n${MARK}\\n'`])].join("\n");
  return (await run(block, "bash", ["-c", script])).split(`\n${MARK}\n`);
}

/** A block the README runs "in another terminal", in its own process group; its pid. */
function runInBackground(text: string, port: number): number {
  const child = spawn("bash", ["-c", text], { cwd: TEST_DIR, env: { ...process.env, PORT: String(port) }, detached: true, stdio: "ignore" });
  return child.pid!;
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGTERM");
  } catch {
    // already gone
  }
}

/** The README's commands use curl and jq. */
function missingTool(): string | undefined {
  for (const tool of ["curl", "jq"]) {
    if (spawnSync(tool, ["--version"]).status !== 0) return `no ${tool} on PATH (apt-get install ${tool})`;
  }
  return undefined;
}

