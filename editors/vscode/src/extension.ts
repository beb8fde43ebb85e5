// The VS Code side: start crd-lsp through vscode-languageclient, pass the
// crdLsp settings, and offer the commands and the status bar item.

import * as fs from "fs";
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
} from "vscode-languageclient/node";
import { ProgressValue, progressStatus, resolveServerPath, serverArgs, serverSettings } from "./config";

let client: LanguageClient | undefined;
let status: vscode.StatusBarItem;
let output: vscode.LogOutputChannel;
// The token of the package pull under way, which a click on the status
// bar item cancels.
let pulling: string | number | undefined;

function settings(): Record<string, unknown> {
  const cfg = vscode.workspace.getConfiguration("crdLsp");
  return serverSettings((key) => cfg.get(key));
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const resolved = resolveServerPath({
    setting: vscode.workspace.getConfiguration("crdLsp").get<string>("server.path") ?? "",
    extensionPath: context.extensionPath,
    platform: process.platform,
    arch: process.arch,
    pathEnv: process.env.PATH ?? "",
    exists: (p) => fs.existsSync(p),
  });
  if ("error" in resolved) {
    status.text = "$(error) crd-lsp";
    status.tooltip = resolved.error;
    void vscode.window.showErrorMessage(resolved.error, "Open Settings").then((choice) => {
      if (choice) {
        void vscode.commands.executeCommand("workbench.action.openSettings", "crdLsp.server.path");
      }
    });
    return;
  }
  const initial = settings();
  const serverOptions: ServerOptions = { command: resolved.path, args: serverArgs(initial) };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: "yaml" }],
    initializationOptions: initial,
    outputChannel: output,
    synchronize: { configurationSection: "crdLsp" },
    middleware: {
      workspace: {
        // Answer workspace/configuration with the crdLsp object as the server reads it.
        configuration: (params) => params.items.map((item) => (item.section === "crdLsp" ? settings() : null)),
      },
      // The server's "Preview rendered" lenses run crdLsp.render, which
      // returns YAML; route them to the command that shows it.
      provideCodeLenses: async (document, token, next) => {
        const lenses = await next(document, token);
        for (const lens of lenses ?? []) {
          if (lens.command?.command === "crdLsp.render") {
            lens.command = { ...lens.command, command: "crdLsp.previewRendered" };
          }
        }
        return lenses;
      },
    },
  };
  client = new LanguageClient("crdLsp", "crd-lsp", serverOptions, clientOptions);
  client.onDidChangeState((e) => {
    status.text = e.newState === State.Running ? "$(check) crd-lsp" : e.newState === State.Starting ? "$(sync~spin) crd-lsp" : "$(circle-slash) crd-lsp";
    status.tooltip = `crd-lsp (${resolved.from}: ${resolved.path})`;
  });
  await client.start();
  // Package pulls report $/progress: show them in the status bar item.
  client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
    client?.onProgress(WorkDoneProgress.type, token, (value) => {
      const st = progressStatus(value as ProgressValue);
      status.text = st.text;
      status.tooltip = st.tooltip;
      pulling = st.busy ? token : undefined;
      status.command = st.busy ? "crdLsp.cancelPull" : "crdLsp.showOutput";
    });
  });
}

async function stop(): Promise<void> {
  if (client) {
    await client.stop();
    client = undefined;
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("crd-lsp", { log: true });
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = "crdLsp.showOutput";
  status.text = "$(sync~spin) crd-lsp";
  status.show();
  context.subscriptions.push(
    output,
    status,
    vscode.commands.registerCommand("crdLsp.restartServer", async () => {
      await stop();
      await start(context);
    }),
    vscode.commands.registerCommand("crdLsp.showOutput", () => output.show(true)),
    vscode.commands.registerCommand("crdLsp.cancelPull", async () => {
      if (client && pulling !== undefined) {
        await client.sendNotification(WorkDoneProgressCancelNotification.type, { token: pulling });
      }
    }),
    vscode.commands.registerCommand("crdLsp.pullDependencies", async () => {
      if (!client) {
        return;
      }
      try {
        const summary = await client.sendRequest<string>("workspace/executeCommand", { command: "crdLsp.pull", arguments: [] });
        output.info(summary);
        void vscode.window.showInformationMessage("crd-lsp: package dependencies pulled (details in the output)");
      } catch (e) {
        void vscode.window.showWarningMessage(`crd-lsp: pulling dependencies failed (${e})`);
      }
    }),
    vscode.commands.registerCommand("crdLsp.previewRendered", async (uri?: string, line?: number, xr?: string) => {
      const editor = vscode.window.activeTextEditor;
      if (!client || (!editor && uri === undefined)) {
        return;
      }
      try {
        const yaml = await client.sendRequest<string>("workspace/executeCommand", {
          command: "crdLsp.render",
          // A lens may name the example XR to render with.
          arguments: [uri ?? editor!.document.uri.toString(), line ?? editor!.selection.active.line, ...(xr ? [xr] : [])],
        });
        const doc = await vscode.workspace.openTextDocument({ language: "yaml", content: yaml });
        await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
      } catch (e) {
        void vscode.window.showWarningMessage(`crd-lsp: rendering is not available in this server version (${e})`);
      }
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("crdLsp.server.path") || e.affectsConfiguration("crdLsp.logLevel")) {
        await stop();
        await start(context);
      }
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await stop();
}
