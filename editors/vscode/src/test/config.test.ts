import * as assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { progressStatus, resolveServerPath, serverArgs, serverSettings } from "../config";

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
