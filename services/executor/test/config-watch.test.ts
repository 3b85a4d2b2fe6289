import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { watchConfigFile } from "../src/config-watch.js";

/** Resolves once `calls()` has grown past `count`, failing after 10 s. */
async function calledMoreThan(calls: () => number, count: number): Promise<void> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    if (calls() > count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail("the change was not seen");
}

describe("config watch", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-watch-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("config watch - a file behind a symlink, replaced by rename as editors save, is seen", async () => {
    await mkdir(join(dir, "deploy"));
    await writeFile(join(dir, "deploy/switchyard.yaml"), "servers: {}\n");
    await symlink("deploy/switchyard.yaml", join(dir, "switchyard.yaml"));
    let calls = 0;
    const watch = watchConfigFile(join(dir, "switchyard.yaml"), async () => void calls++);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1200));
      assert.equal(calls, 0, "nothing changed yet");
      await writeFile(join(dir, "deploy/.switchyard.yaml.swp"), "servers: { a: { command: x } }\n");
      await rename(join(dir, "deploy/.switchyard.yaml.swp"), join(dir, "deploy/switchyard.yaml"));
      await calledMoreThan(() => calls, 0);
    } finally {
      await watch.close();
    }
  });

  it("config watch - a symlink swapped to a new version, as a Kubernetes ConfigMap update does, is seen; none after close", async () => {
    const mount = join(dir, "config");
    await mkdir(join(mount, "..v1"), { recursive: true });
    await writeFile(join(mount, "..v1/switchyard.yaml"), "servers: {}\n");
    await symlink("..v1", join(mount, "..data"));
    await symlink("..data/switchyard.yaml", join(mount, "switchyard.yaml"));
    let calls = 0;
    const watch = watchConfigFile(join(mount, "switchyard.yaml"), async () => void calls++);
    await mkdir(join(mount, "..v2"));
    await writeFile(join(mount, "..v2/switchyard.yaml"), "servers: { a: { command: x } }\n");
    await symlink("..v2", join(mount, "..data_tmp"));
    await rename(join(mount, "..data_tmp"), join(mount, "..data"));
    await calledMoreThan(() => calls, 0);

    await watch.close();
    const seen = calls;
    await writeFile(join(mount, "..v2/switchyard.yaml"), "servers: {}\n");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(calls, seen, "not watched after close");
  });
});
