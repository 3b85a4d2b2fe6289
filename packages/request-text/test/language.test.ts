import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { foreignLanguage } from "../src/language.js";

describe("request-text - language", () => {
  const CASES: [string, string | undefined][] = [
    ["lee el archivo notes/todo.md", "Spanish"],
    ["liste los archivos en la carpeta notes", "Spanish"],
    ["zeig mir die Dateien im Ordner notes", "German"],
    ["list the files in notes", undefined],
    // too short or code-like for the detector to be reliable (issue 37: "echo hello world" was Norwegian)
    ["echo hello world", undefined],
    ["ls -la notes", undefined],
    ["git status", undefined],
    ["x = fetch(url); print(x)", undefined],
    ["hola amigo", undefined],
  ];
  for (const [text, expected] of CASES) {
    it(`language - ${JSON.stringify(text)} is ${expected ?? "not judged foreign"}`, () => {
      assert.equal(foreignLanguage(text), expected);
    });
  }
});
