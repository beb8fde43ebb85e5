import * as assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { noteLinks, previewLocation, previewTarget, progressStatus, resolveServerPath, serverArgs, serverSettings, shiftLine } from "../config";

test("serverSettings nests dotted keys and leaves unset values out", () => {
  const flat: Record<string, unknown> = {
    crossplaneVersion: "v1",
    "schemas.exclude": ["charts/**"],
    "schemas.include": [],
    "validation.unknownKind": "error",
    "registries.insecure": ["127.0.0.1:5000"],
    cacheDir: "",
    logLevel: "debug",
  };
  assert.deepEqual(serverSettings((k) => flat[k]), {
    crossplaneVersion: "v1",
    schemas: { exclude: ["charts/**"] },
    validation: { unknownKind: "error" },
    registries: { insecure: ["127.0.0.1:5000"] },
    logLevel: "debug",
  });
  assert.deepEqual(serverSettings(() => undefined), {});
});

test("serverSettings passes the functions crd-lsp runs and the timeouts", () => {
  const flat: Record<string, unknown> = {
    functions: { "function-go-templating": "/opt/fn/go-templating" },
    functionsFiles: ["dev/functions.yaml"],
    functionTimeout: 5,
    realPatchAndTransform: false,
    "registries.timeout": 30,
    maxDocuments: 10000,
  };
  assert.deepEqual(serverSettings((k) => flat[k]), {
    functions: { "function-go-templating": "/opt/fn/go-templating" },
    functionsFiles: ["dev/functions.yaml"],
    functionTimeout: 5,
    realPatchAndTransform: false,
    registries: { timeout: 30 },
    maxDocuments: 10000,
  });
  // VS Code's default for an object setting is {}: left out.
  assert.deepEqual(serverSettings((k) => (k === "functions" ? {} : undefined)), {});
});

test("serverArgs passes --stdio and the log level", () => {
  assert.deepEqual(serverArgs({}), ["--stdio"]);
  assert.deepEqual(serverArgs({ logLevel: "info" }), ["--stdio", "--log-level", "info"]);
});

const ext = "/ext";
const bundled = path.join(ext, "bin", "linux-x64", "crd-lsp");

test("the setting wins, and a missing file there is an error that names it", () => {
  const exists = (p: string) => p === "/opt/crd-lsp" || p === bundled;
  assert.deepEqual(resolveServerPath({ setting: "/opt/crd-lsp", extensionPath: ext, platform: "linux", arch: "x64", pathEnv: "", exists }), { path: "/opt/crd-lsp", from: "setting" });
  const r = resolveServerPath({ setting: "/nope", extensionPath: ext, platform: "linux", arch: "x64", pathEnv: "", exists });
  assert.ok("error" in r && r.error.includes("/nope") && r.error.includes("crdLsp.server.path"));
});

test("bundled binary, then PATH, then a clear error", () => {
  assert.deepEqual(resolveServerPath({ setting: "", extensionPath: ext, platform: "linux", arch: "x64", pathEnv: "/usr/bin", exists: (p) => p === bundled }), { path: bundled, from: "bundled" });
  assert.deepEqual(resolveServerPath({ setting: "", extensionPath: ext, platform: "linux", arch: "arm64", pathEnv: "/a:/usr/local/bin", exists: (p) => p === "/usr/local/bin/crd-lsp" }), { path: "/usr/local/bin/crd-lsp", from: "PATH" });
  const win = resolveServerPath({ setting: "", extensionPath: ext, platform: "win32", arch: "x64", pathEnv: "C:\\tools", exists: (p) => p.endsWith("crd-lsp.exe") && p.startsWith("C:") });
  assert.ok("path" in win && win.path.endsWith("crd-lsp.exe"));
  const none = resolveServerPath({ setting: "", extensionPath: ext, platform: "darwin", arch: "arm64", pathEnv: "/usr/bin", exists: () => false });
  assert.ok("error" in none && none.error.includes("darwin-arm64") && none.error.includes("crdLsp.server.path"));
});

test("progressStatus follows a package pull in the status bar", () => {
  const begin = progressStatus({ kind: "begin", title: "crd-lsp: package dependencies", message: "Resolving 3 dependencies" });
  assert.equal(begin.busy, true);
  assert.match(begin.tooltip, /Resolving 3 dependencies/);
  const report = progressStatus({ kind: "report", message: "Pulling xpkg.crossplane.io/crossplane-contrib/provider-upjet-aws-s3:v2.1.0 (3/7)", percentage: 42 });
  assert.equal(report.text, "$(sync~spin) crd-lsp 42%");
  assert.match(report.tooltip, /provider-upjet-aws-s3:v2\.1\.0 \(3\/7\)/);
  const end = progressStatus({ kind: "end", message: "7 packages ready, 0 problems" });
  assert.deepEqual(end, { text: "$(check) crd-lsp", tooltip: "crd-lsp: 7 packages ready, 0 problems", busy: false });
});

test("a preview's URI names the Composition and keeps its target", () => {
  const target = { source: "file:///work/my%20app/composition.yaml", line: 20, xr: "/work/my app/examples/xr.yaml" };
  const loc = previewLocation(target);
  assert.equal(loc.path, "/Preview composition.yaml");
  assert.deepEqual(previewTarget(loc.query), target);
  assert.equal(previewLocation({ source: "untitled:Untitled-1", line: 0 }).path, "/Preview untitled:Untitled-1.yaml");
  assert.equal(previewTarget("not json"), undefined);
  assert.equal(previewTarget('{"line": 3}'), undefined);
});

test("shiftLine follows a resource's line through edits above, below and on it", () => {
  // Two lines inserted above line 10 (an edit on lines 2-2 adding two newlines).
  assert.equal(shiftLine(10, [{ startLine: 2, endLine: 2, text: "a\nb\n" }]), 12);
  // Three lines (4..7) replaced by one.
  assert.equal(shiftLine(10, [{ startLine: 4, endLine: 7, text: "x" }]), 7);
  // Below: nothing moves.
  assert.equal(shiftLine(10, [{ startLine: 11, endLine: 15, text: "" }]), 10);
  // Typing on the line itself: nothing moves.
  assert.equal(shiftLine(10, [{ startLine: 10, endLine: 10, text: "abc" }]), 10);
  // A deletion that swallows the line: it lands where the deletion started.
  assert.equal(shiftLine(10, [{ startLine: 8, endLine: 12, text: "" }]), 8);
  // In order: one line added above, then the line (now 11) kept.
  assert.equal(shiftLine(10, [{ startLine: 0, endLine: 0, text: "\n" }, { startLine: 11, endLine: 11, text: "z" }]), 11);
});

test("noteLinks finds the FILE:LINE:COL notes of a preview", () => {
  const text = [
    "# Rendered by crd-lsp with a composite resource synthesised from the XRD:",
    "# its required fields with placeholders, optional fields unset.",
    '# composition.yaml:25:15: Deployment "deployment": spec: missing required field "selector"',
    "---",
    "apiVersion: apps/v1",
    "# not: a note",
  ].join("\n");
  assert.deepEqual(noteLinks(text), [{ line: 2, start: 2, end: 2 + "composition.yaml:25:15".length, targetLine: 25, targetCol: 15 }]);
});

test("a failed pull leaves no check mark: the item says so and names the crossplane.yaml to open", () => {
  const st = progressStatus({ kind: "end", message: "package pull failed: 1 of 2 dependencies (xpkg.example/p: not found); 1 packages ready — in /work/app/crossplane.yaml" });
  assert.equal(st.text, "$(warning) crd-lsp: pull failed");
  assert.equal(st.failedIn, "/work/app/crossplane.yaml");
  assert.match(st.tooltip, /1 of 2 dependencies \(xpkg.example\/p: not found\).*click to open \/work\/app\/crossplane.yaml/);
  assert.equal(st.busy, false);
  // The next pull that succeeds brings the check mark back.
  assert.equal(progressStatus({ kind: "end", message: "2 packages ready, 0 problems" }).text, "$(check) crd-lsp");
});
