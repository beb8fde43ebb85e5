// Drives the real crd-lsp binary the way the extension does: the same
// command-line arguments, initializationOptions and workspace/configuration
// answers, over vscode-languageserver-protocol (what vscode-languageclient
// uses inside VS Code). CRD_LSP_BIN names the binary; without it the test is
// skipped (the Go test that runs this suite always sets it).

import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";
import {
  CodeLensRequest,
  CompletionRequest,
  ConfigurationRequest,
  ExecuteCommandRequest,
  createProtocolConnection,
  DidOpenTextDocumentNotification,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  PublishDiagnosticsParams,
  ShutdownRequest,
  ExitNotification,
} from "vscode-languageserver-protocol";
import { serverArgs, serverSettings } from "../config";

const bin = process.env.CRD_LSP_BIN;

test("the extension's server session: diagnostics, hover, completion", { skip: !bin && "CRD_LSP_BIN not set" }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "crd-lsp-vscode-"));
  fs.writeFileSync(
    path.join(dir, "xrd.yaml"),
    [
      "apiVersion: apiextensions.crossplane.io/v2",
      "kind: CompositeResourceDefinition",
      "metadata:",
      "  name: xapps.example.org",
      "spec:",
      "  group: example.org",
      "  names: {kind: XApp, plural: xapps}",
      "  versions:",
      "    - name: v1",
      "      served: true",
      "      referenceable: true",
      "      schema:",
      "        openAPIV3Schema:",
      "          type: object",
      "          properties:",
      "            spec:",
      "              type: object",
      "              required: [image]",
      "              properties:",
      "                image: {type: string}",
      "",
    ].join("\n"),
  );
  const flat: Record<string, unknown> = { "validation.unknownKind": "error", logLevel: "info" };
  const settings = serverSettings((k) => flat[k]);
  const proc = spawn(bin!, serverArgs(settings), { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  const conn = createProtocolConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
  const published = new Map<string, PublishDiagnosticsParams[]>();
  conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
    published.set(p.uri, [...(published.get(p.uri) ?? []), p]);
  });
  let schemasLoaded: () => void = () => {};
  const loaded = new Promise<void>((resolve) => (schemasLoaded = resolve));
  conn.onNotification("window/logMessage", (p: { message: string }) => {
    if (p.message.includes("schemas loaded")) {
      schemasLoaded();
    }
  });
  conn.onRequest(ConfigurationRequest.type, (p) => p.items.map((i) => (i.section === "crdLsp" ? settings : null)));
  conn.onRequest("client/registerCapability", () => null);
  conn.onRequest("window/workDoneProgress/create", () => null);
  conn.listen();

  const root = pathToFileURL(dir).toString();
  const init = await conn.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: root,
    workspaceFolders: [{ uri: root, name: "ws" }],
    initializationOptions: settings,
    capabilities: {
      general: { positionEncodings: ["utf-16"] },
      workspace: { configuration: true, workspaceFolders: true, didChangeWatchedFiles: { dynamicRegistration: true } },
      textDocument: {
        publishDiagnostics: { versionSupport: true },
        hover: { contentFormat: ["markdown", "plaintext"] },
        completion: { completionItem: { snippetSupport: true } },
      },
    },
  });
  assert.equal(init.capabilities.positionEncoding, "utf-16");
  assert.ok(init.capabilities.hoverProvider);
  await conn.sendNotification(InitializedNotification.type, {});

  const uri = pathToFileURL(path.join(dir, "app.yaml")).toString();
  const text = [
    "apiVersion: apps/v1",
    "kind: Deployment",
    "metadata:",
    "  name: web",
    "spec:",
    "  replicas: three",
    "  selector:",
    "    matchLabels: {app: web}",
    "  template:",
    "    metadata:",
    "      labels: {app: web}",
    "    spec:",
    "      containers:",
    "        - name: web",
    "          image: nginx:1.27",
    "---",
    "apiVersion: example.org/v1",
    "kind: Unknown",
    "",
  ].join("\n");
  // Wait for the server's schemas, then open the document.
  await loaded;
  await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "yaml", version: 1, text } });
  const deadline = Date.now() + 15000;
  let diags: PublishDiagnosticsParams | undefined;
  while (Date.now() < deadline) {
    const list = published.get(uri) ?? [];
    diags = list[list.length - 1];
    if (diags && diags.diagnostics.length === 2) {
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(diags, `no diagnostics; stderr: ${stderr}`);
  const summary = diags!.diagnostics.map((d) => `${d.range.start.line}:${d.range.start.character} ${d.severity} ${d.code} ${d.source}`);
  assert.deepEqual(summary, ["5:12 1 type crd-lsp", "17:6 1 unknown-kind crd-lsp"]);

  const hover = await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 5, character: 3 } });
  const value = hover && typeof hover.contents === "object" && "value" in hover.contents ? hover.contents.value : "";
  assert.match(value, /\*\*replicas\*\* `integer \(int32\)`/);

  const completion = await conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: { line: 14, character: 10 } });
  const items = Array.isArray(completion) ? completion : completion?.items ?? [];
  assert.ok(items.some((i) => i.label === "ports" && i.insertTextFormat === 2), "ports offered as a snippet");

  // "Preview rendered": the lens the server offers, and the request the
  // extension's crdLsp.previewRendered command sends for it.
  const compURI = pathToFileURL(path.join(dir, "composition.yaml")).toString();
  const composition = [
    "apiVersion: apiextensions.crossplane.io/v1",
    "kind: Composition",
    "metadata:",
    "  name: app",
    "spec:",
    "  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}",
    "  mode: Pipeline",
    "  pipeline:",
    "    - step: pt",
    "      functionRef: {name: function-patch-and-transform}",
    "      input:",
    "        apiVersion: pt.fn.crossplane.io/v1beta1",
    "        kind: Resources",
    "        resources:",
    "          - name: deployment",
    "            base:",
    "              apiVersion: apps/v1",
    "              kind: Deployment",
    "              spec:",
    "                template: {spec: {containers: [{name: app}]}}",
    "            patches:",
    "              - fromFieldPath: spec.image",
    "                toFieldPath: spec.template.spec.containers[0].image",
    "",
  ].join("\n");
  await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: compURI, languageId: "yaml", version: 1, text: composition } });
  const lenses = await conn.sendRequest(CodeLensRequest.type, { textDocument: { uri: compURI } });
  assert.deepEqual(
    (lenses ?? []).map((l) => `${l.range.start.line} ${l.command?.title} ${l.command?.command}`),
    ["1 Preview rendered (all resources) crdLsp.render", "14 Preview rendered crdLsp.render"],
  );
  const rendered = await conn.sendRequest(ExecuteCommandRequest.type, { command: "crdLsp.render", arguments: [compURI, 14] });
  assert.match(String(rendered), /kind: Deployment/);
  assert.match(String(rendered), /image: example/);
  assert.match(String(rendered), /crossplane.io\/composition-resource-name: deployment/);

  await conn.sendRequest(ShutdownRequest.type);
  await conn.sendNotification(ExitNotification.type);
  const code = await new Promise<number | null>((resolve) => proc.on("exit", resolve));
  assert.equal(code, 0);
  conn.dispose();
});
