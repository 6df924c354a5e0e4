import { afterAll, describe, expect, it } from "vitest";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { findSessionFiles } from "../src/extractors/trajectory/session-files.js";
import { makeTree, removeTree } from "./helpers/tree.js";

/** findSessionFiles: the session files under a folder, links followed, nothing hidden in silence. */
const roots: string[] = [];
afterAll(async () => Promise.all(roots.map(removeTree)));

const wire = (name: string): boolean => /^wire\.jsonl(\.gz)?$/.test(name);
const jsonl = (name: string): boolean => /\.jsonl(\.gz)?$/.test(name);

async function tree(files: string[]): Promise<string> {
  const root = await makeTree(Object.fromEntries(files.map((f) => [f, "{}\n"])));
  roots.push(root);
  return root;
}

describe("findSessionFiles", () => {
  it("finds every file with a session name at any depth, dot folders and names included", async () => {
    const root = await tree([
      "s/1/agents/main/wire.jsonl",
      "s/2/wire.jsonl.gz",
      ".hidden/wire.jsonl",
      "s/1/Wire.jsonl",
      "s/1/xwire.jsonl",
      "s/1/wire.jsonl.bak",
      "wire.jsonl",
    ]);
    expect(findSessionFiles(root, wire).files.sort()).toEqual([
      ".hidden/wire.jsonl",
      "s/1/agents/main/wire.jsonl",
      "s/2/wire.jsonl.gz",
      "wire.jsonl",
    ]);
    // The files with other names, sorted: what the walk saw and did not take.
    expect(findSessionFiles(root, wire).others).toEqual(["s/1/Wire.jsonl", "s/1/wire.jsonl.bak", "s/1/xwire.jsonl"]);
    expect(findSessionFiles(root, jsonl).files.sort()).toEqual([
      ".hidden/wire.jsonl",
      "s/1/Wire.jsonl",
      "s/1/agents/main/wire.jsonl",
      "s/1/xwire.jsonl",
      "s/2/wire.jsonl.gz",
      "wire.jsonl",
    ]);
  });

  it("follows links to folders and to files; a folder named like a session file is walked, not taken", async () => {
    const root = await tree(["real/wire.jsonl", "dir.jsonl/a.jsonl"]);
    await symlink("real", join(root, "alias"));
    await symlink("real/wire.jsonl", join(root, "top.jsonl"));
    expect(findSessionFiles(root, jsonl)).toEqual({
      files: expect.arrayContaining(["alias/wire.jsonl", "real/wire.jsonl", "top.jsonl", "dir.jsonl/a.jsonl"]),
      unreadable: [],
      others: [],
    });
    expect(findSessionFiles(root, jsonl).files).toHaveLength(4);
  });

  it("reports a dangling link with a session name, ignores one with another name", async () => {
    const root = await tree(["a/wire.jsonl"]);
    await symlink("gone.jsonl", join(root, "a", "lost.jsonl"));
    await symlink("gone", join(root, "a", "other"));
    const found = findSessionFiles(root, jsonl);
    expect(found.files).toEqual(["a/wire.jsonl"]);
    // The link with another name is no session file: one of the others (tokens warns it is not read).
    expect(found.others).toEqual(["a/other"]);
    expect(found.unreadable.map(([path, err]) => [path, err.syscall, err.code])).toEqual([
      [join(root, "a", "lost.jsonl"), "stat", "ENOENT"],
    ]);
  });

  it("walks each real folder once: a link loop gives its files' paths through the link once more", async () => {
    const root = await tree(["s/wire.jsonl"]);
    await symlink(".", join(root, "s", "again"));
    expect(findSessionFiles(root, wire)).toEqual({
      files: ["s/wire.jsonl", "s/again/wire.jsonl"],
      unreadable: [],
      others: [],
    });
  });

  it("finishes at once with two links to an ancestor (a walk that followed them doubled the paths at every level)", async () => {
    const root = await tree(["2026/10/02/r.jsonl", "2026/10/03/r.jsonl"]);
    await symlink("..", join(root, "2026", "a"));
    await symlink("..", join(root, "2026", "b"));
    expect(findSessionFiles(root, jsonl).files).toEqual([
      "2026/10/02/r.jsonl",
      "2026/10/03/r.jsonl",
      "2026/a/2026/10/02/r.jsonl",
      "2026/a/2026/10/03/r.jsonl",
      "2026/b/2026/10/02/r.jsonl",
      "2026/b/2026/10/03/r.jsonl",
    ]);
  });

  it("finds a file first by its path without a link, whatever the names", async () => {
    const root = await tree(["z/real/r.jsonl"]);
    await symlink("z/real", join(root, "a-link")); // listed before z, and shallower
    expect(findSessionFiles(root, jsonl).files).toEqual(["z/real/r.jsonl", "a-link/r.jsonl"]);
  });

  it("reports a root that is not a folder it can list", async () => {
    const root = await tree(["a/wire.jsonl"]);
    const found = findSessionFiles(join(root, "a", "wire.jsonl"), wire);
    expect(found.files).toEqual([]);
    expect(found.unreadable.map(([path, err]) => [path, err.syscall, err.code])).toEqual([
      [join(root, "a", "wire.jsonl"), "scandir", "ENOTDIR"],
    ]);
  });
});
