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
import {
  noteLinks,
  PreviewTarget,
  previewLocation,
  previewScheme,
  previewTarget,
  ProgressValue,
  progressStatus,
  resolveServerPath,
  serverArgs,
  serverSettings,
  shiftLine,
} from "./config";

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

async function start(context: vscode.ExtensionContext, previews: Previews): Promise<void> {
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
    // Files and untitled buffers only: previews (crd-lsp-preview:), diff
    // views (git:) and other virtual documents are not files to diagnose.
    documentSelector: [
      { scheme: "file", language: "yaml" },
      { scheme: "untitled", language: "yaml" },
    ],
    initializationOptions: initial,
    outputChannel: output,
    synchronize: { configurationSection: "crdLsp" },
    middleware: {
      // The server publishes a file's diagnostics after each analysis of it
      // (an edit, a schema or setting change, the workspace loaded): its
      // previews render again then, from the same state of the world.
      handleDiagnostics: (uri, diagnostics, next) => {
        next(uri, diagnostics);
        previews.rendered(uri.toString());
      },
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
  // Previews opened before (re)starting render from this server now.
  previews.rendered();
  // Package pulls report $/progress: show them in the status bar item.
  client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
    client?.onProgress(WorkDoneProgress.type, token, (value) => {
      const st = progressStatus(value as ProgressValue);
      status.text = st.text;
      status.tooltip = st.tooltip;
      pulling = st.busy ? token : undefined;
      status.command = st.busy
        ? "crdLsp.cancelPull"
        : st.failedIn
          ? { command: "crdLsp.showPullProblem", title: "Show the failed package pull", arguments: [st.failedIn] }
          : "crdLsp.showOutput";
    });
  });
}

/**
 * Previews serves "Preview rendered" as read-only documents of the
 * crd-lsp-preview: scheme: each asks the server to render (crdLsp.render)
 * when VS Code reads it, and again whenever YAML in the workspace changes.
 * They are never dirty, never saved and never diagnosed (the client's
 * document selector leaves the scheme out; the server ignores it too). The
 * notes at the top ("# composition.yaml:25:15: …") link back to the
 * Composition.
 */
class Previews implements vscode.TextDocumentContentProvider, vscode.DocumentLinkProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  // The open previews by URI, with the line each renders (followed through edits).
  private readonly targets = new Map<string, { uri: vscode.Uri; target: PreviewTarget }>();

  /** open is the URI of the preview of target, refreshed if it is already open. */
  open(target: PreviewTarget): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: previewScheme, ...previewLocation(target) });
    const known = this.targets.has(uri.toString());
    this.targets.set(uri.toString(), { uri, target });
    if (known) {
      this.emitter.fire(uri);
    }
    return uri;
  }

  closed(uri: vscode.Uri): void {
    this.targets.delete(uri.toString());
  }

  /** edited moves the line the previews of source render through its edits. */
  edited(source: string, changes: readonly vscode.TextDocumentContentChangeEvent[]): void {
    for (const p of this.targets.values()) {
      if (p.target.source === source) {
        p.target.line = shiftLine(p.target.line, changes.map((c) => ({ startLine: c.range.start.line, endLine: c.range.end.line, text: c.text })));
      }
    }
  }

  /** rendered re-renders the previews of source (undefined: all of them). */
  rendered(source?: string): void {
    for (const p of this.targets.values()) {
      if (source === undefined || p.target.source === source) {
        this.emitter.fire(p.uri);
      }
    }
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const target = this.targets.get(uri.toString())?.target ?? previewTarget(uri.query);
    if (!target) {
      return "# crd-lsp: this preview names no Composition.\n";
    }
    if (!client) {
      return "# crd-lsp: the server is not running (crd-lsp: Restart Server).\n";
    }
    try {
      return await client.sendRequest<string>(
        "workspace/executeCommand",
        // A lens may name the example XR to render with.
        { command: "crdLsp.render", arguments: [target.source, target.line, ...(target.xr ? [target.xr] : [])] },
        token,
      );
    } catch (e) {
      return `# crd-lsp could not render ${target.source} at line ${target.line + 1}: ${e instanceof Error ? e.message : e}\n`;
    }
  }

  provideDocumentLinks(doc: vscode.TextDocument): vscode.DocumentLink[] {
    const target = this.targets.get(doc.uri.toString())?.target ?? previewTarget(doc.uri.query);
    if (!target) {
      return [];
    }
    const source = vscode.Uri.parse(target.source);
    return noteLinks(doc.getText()).map((l) => {
      const link = new vscode.DocumentLink(new vscode.Range(l.line, l.start, l.line, l.end), source.with({ fragment: `L${l.targetLine},${l.targetCol}` }));
      link.tooltip = "Go to the Composition";
      return link;
    });
  }

  dispose(): void {
    this.emitter.dispose();
  }
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
  const previews = new Previews();
  const watcher = vscode.workspace.createFileSystemWatcher("**/*.{yaml,yml}");
  context.subscriptions.push(
    previews,
    output,
    status,
    vscode.commands.registerCommand("crdLsp.restartServer", async () => {
      await stop();
      await start(context, previews);
    }),
    vscode.commands.registerCommand("crdLsp.showOutput", () => output.show(true)),
    // The crossplane.yaml whose dependencies failed to pull: open, its
    // dependsOn entries carry the registry's errors; the Problems panel lists them.
    vscode.commands.registerCommand("crdLsp.showPullProblem", async (file?: string) => {
      if (!file) {
        output.show(true);
        return;
      }
      await vscode.window.showTextDocument(vscode.Uri.file(file));
      await vscode.commands.executeCommand("workbench.actions.view.problems");
    }),
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
      if (uri === undefined && (!editor || editor.document.uri.scheme === previewScheme)) {
        return;
      }
      const target: PreviewTarget = { source: uri ?? editor!.document.uri.toString(), line: line ?? editor!.selection.active.line, ...(xr ? { xr } : {}) };
      const doc = await vscode.workspace.openTextDocument(previews.open(target));
      await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
    }),
    vscode.workspace.registerTextDocumentContentProvider(previewScheme, previews),
    vscode.languages.registerDocumentLinkProvider({ scheme: previewScheme }, previews),
    // A preview follows its resource's line through edits of the
    // Composition, and renders again when the Composition is analysed (see
    // handleDiagnostics) or YAML on disk changes.
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document.uri.scheme !== previewScheme && e.contentChanges.length > 0) {
        previews.edited(e.document.uri.toString(), e.contentChanges);
      }
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      if (doc.uri.scheme === previewScheme) {
        previews.closed(doc.uri);
      }
    }),
    watcher,
    watcher.onDidChange(() => previews.rendered()),
    watcher.onDidCreate(() => previews.rendered()),
    watcher.onDidDelete(() => previews.rendered()),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("crdLsp.server.path") || e.affectsConfiguration("crdLsp.logLevel")) {
        await stop();
        await start(context, previews);
      }
    }),
  );
  await start(context, previews);
}

export async function deactivate(): Promise<void> {
  await stop();
}
