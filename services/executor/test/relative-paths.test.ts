import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OUTSIDE_PATH, relativeToRoots, rootsByServer, servedRoots, withoutDeniedPaths, withoutOutsidePaths, withRelativePaths } from "../src/relative-paths.js";
import type { ServerConfig, StdioServerConfig } from "../src/servers-config.js";

const ROOTS = ["/srv/ws", "/private/srv/ws"];

function stdio(name: string, args: string[], cwd?: string): StdioServerConfig {
  const common = { name, exclude: [], core: [], pool: name, domains: [], tools: {}, tenants: [], trust: "first-use" as const };
  return { ...common, transport: "stdio", command: "mcp-server-filesystem", args, env: {}, ...(cwd === undefined ? {} : { cwd }) };
}

describe("relative paths", () => {
  it("relative paths - a path under a root is named from the root, the root itself as .", () => {
    assert.equal(
      relativeToRoots("ENOENT: no such file or directory, open '/srv/ws/notes/missing.md'", ROOTS),
      "ENOENT: no such file or directory, open 'notes/missing.md'",
    );
    assert.equal(relativeToRoots("Allowed directories:\n/srv/ws", ROOTS), "Allowed directories:\n.");
    assert.equal(relativeToRoots("Access denied - path outside allowed directories: /etc/passwd not in /srv/ws/", ROOTS),
      "Access denied - path outside allowed directories: /etc/passwd not in .");
    assert.equal(relativeToRoots("/private/srv/ws/a.md and /srv/ws/b.md", ROOTS), "a.md and b.md", "the real path too, every occurrence");
  });

  it("relative paths - only whole paths and whole segments match", () => {
    assert.equal(relativeToRoots("open '/srv/ws2/a.md'", ROOTS), "open '/srv/ws2/a.md'");
    assert.equal(relativeToRoots("open '/home/srv/ws/a.md'", ROOTS), "open '/home/srv/ws/a.md'");
    assert.equal(relativeToRoots("open '/srv/ws.old/a.md'", ROOTS), "open '/srv/ws.old/a.md'");
  });

  it("relative paths - a root inside another names its paths from itself", () => {
    assert.equal(relativeToRoots("/srv/ws/notes/a.md, /srv/ws/b.md", ["/srv/ws", "/srv/ws/notes"]), "a.md, b.md");
  });

  it("relative paths - a result's error and every string of its output, at any depth", () => {
    const result = {
      success: false,
      output: { files: ["/srv/ws/a.md", { path: "/srv/ws/b/c.md", size: 3 }], root: "/srv/ws" },
      error: "EACCES: permission denied, open '/srv/ws/a.md'",
      executionTimeMs: 2,
    };
    assert.deepEqual(withRelativePaths(result, ROOTS), {
      success: false,
      output: { files: ["a.md", { path: "b/c.md", size: 3 }], root: "." },
      error: "EACCES: permission denied, open 'a.md'",
      executionTimeMs: 2,
    });
    assert.equal(withRelativePaths(result, []), result, "no roots: left as it is");
  });

  it("relative paths - an error names no path outside the roots; an output none in the server's refusals, and a file's content is left as it is", () => {
    assert.equal(
      withoutOutsidePaths("ENOENT: no such file or directory, open '/home/u/my secret/a.md'"),
      `ENOENT: no such file or directory, open '${OUTSIDE_PATH}'`,
    );
    assert.equal(withoutOutsidePaths("EACCES: permission denied, scandir /root/.ssh"), `EACCES: permission denied, scandir ${OUTSIDE_PATH}`);
    assert.equal(withoutOutsidePaths("spawn /usr/bin/x ENOENT (cwd=/srv/app)"), `spawn ${OUTSIDE_PATH} ENOENT (cwd=${OUTSIDE_PATH})`);
    assert.equal(withoutOutsidePaths("see https://example.com/a/b, 3/4 done, a / b"), "see https://example.com/a/b, 3/4 done, a / b", "URLs, fractions and a lone slash name no path");
    assert.equal(
      withoutDeniedPaths("Access denied - symlink target outside allowed directories: /srv/other dir/x not in /srv/ws, /srv/ws2"),
      "Access denied - symlink target outside allowed directories",
    );

    const refused = "Access denied - path outside allowed directories: /root/.bashrc not in /srv/ws";
    const result = {
      success: false,
      output: { content: `/root/.bashrc: Error - ${refused}\n---\nnotes/a.md:\ncat /etc/hosts` },
      error: `${refused}; ENOENT: open '/opt/app/secret.md' from /srv/ws/notes`,
      executionTimeMs: 1,
    };
    assert.deepEqual(withRelativePaths(result, ROOTS), {
      ...result,
      output: { content: "/root/.bashrc: Error - Access denied - path outside allowed directories\n---\nnotes/a.md:\ncat /etc/hosts" },
      error: `Access denied - path outside allowed directories`,
    });
    const notRefused = { ...result, error: `ENOENT: open '/opt/app/secret.md' from /srv/ws/notes` };
    assert.equal(withRelativePaths(notRefused, ROOTS).error, `ENOENT: open '${OUTSIDE_PATH}' from notes`);
  });

  describe("served roots", () => {
    let dir = "";
    before(() => {
      dir = mkdtempSync(join(tmpdir(), "switchyard-roots-"));
      mkdirSync(join(dir, "real/workspace"), { recursive: true });
      symlinkSync(join(dir, "real"), join(dir, "linked"));
      writeFileSync(join(dir, "real/file.txt"), "not a directory");
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it("relative paths - a stdio server serves the directories among its arguments, each also by its real path", () => {
      const linked = join(dir, "linked/workspace");
      const server = stdio("filesystem", ["--verbose", linked, join(dir, "real/file.txt"), "real", "/no/such/dir"], dir);
      const real = join(dir, "real");
      // As configured, then as the server reports it; the same path once.
      assert.deepEqual(servedRoots(server), [...new Set([linked, realpathSync(linked), real, realpathSync(real)])]);
      assert.notEqual(realpathSync(linked), linked);
      assert.deepEqual(servedRoots(stdio("everything", ["/"])), [], "the filesystem root is no root to name paths from");
      const http: ServerConfig = { ...stdio("remote", []), transport: "http", url: "http://localhost:3001/mcp", headers: {} };
      assert.deepEqual(servedRoots(http), []);
    });

    it("relative paths - roots by server name follow the servers as they are now", () => {
      let servers: ServerConfig[] = [stdio("filesystem", [join(dir, "real")])];
      const rootsOf = rootsByServer(() => servers);
      assert.deepEqual(rootsOf("filesystem"), servedRoots(servers[0]!));
      assert.deepEqual(rootsOf("memory"), [], "a server not in the config serves nothing");
      servers = [stdio("filesystem", [join(dir, "real/workspace")])];
      assert.ok(rootsOf("filesystem").includes(join(dir, "real/workspace")), "a changed server's new directories");
    });
  });
});
