// Logic of the extension that does not need VS Code, so that it can be
// unit-tested with node:test: settings mapping and finding the server.

import * as path from "path";

/** The settings the extension contributes, as dotted keys under crdLsp. */
export const settingKeys = [
  "crossplaneVersion",
  "schemas.include",
  "schemas.exclude",
  "schemas.paths",
  "schemas.maxFileSize",
  "validation.unknownKind",
  "validation.compositionMode",
  "validation.clientKinds",
  "uptestPlaceholders",
  "registries.default",
  "registries.insecure",
  "registries.timeout",
  "registries.pullTimeout",
  "cacheDir",
  "crdSources",
  "schemaCatalogs",
  "schemaCatalogRefresh",
  "logLevel",
  "maxFileSize",
  "maxDocuments",
  "functions",
  "functionsFiles",
  "workspaceFunctions",
  "functionTimeout",
  "functionStartTimeout",
  "realPatchAndTransform",
  "functionsDocker",
  "functionsFromPackages",
  "allowRemoteFunctions",
  "kustomize.build",
  "kustomize.paths",
  "kustomize.allowRemote",
  "kustomize.enableHelm",
  "kustomize.helmCommand",
] as const;

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === "") {
    return true;
  }
  if (Array.isArray(value)) {
    return value.length === 0;
  }
  return typeof value === "object" && Object.keys(value as object).length === 0;
}

/**
 * serverSettings builds the crdLsp object the server reads (from
 * workspace/configuration and initializationOptions) out of the flat VS Code
 * settings. Unset or empty values are left out so the server's defaults apply.
 */
export function serverSettings(get: (key: string) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of settingKeys) {
    const value = get(key);
    if (isEmpty(value)) {
      continue;
    }
    const parts = key.split(".");
    let obj = out;
    for (const p of parts.slice(0, -1)) {
      obj[p] = (obj[p] as Record<string, unknown>) ?? {};
      obj = obj[p] as Record<string, unknown>;
    }
    obj[parts[parts.length - 1]] = value;
  }
  return out;
}

export interface ResolveInput {
  setting: string; // crdLsp.server.path
  extensionPath: string;
  platform: string; // process.platform
  arch: string; // process.arch
  pathEnv: string; // process.env.PATH
  exists: (p: string) => boolean;
}

export type Resolved = { path: string; from: "setting" | "bundled" | "PATH" } | { error: string };

/** binaryName is the server's file name on a platform. */
export function binaryName(platform: string): string {
  return platform === "win32" ? "crd-lsp.exe" : "crd-lsp";
}

/**
 * resolveServerPath finds the server: the crdLsp.server.path setting, else
 * the binary bundled in the extension (bin/<platform>-<arch>/), else crd-lsp
 * on PATH; otherwise an error that says how to fix it.
 */
export function resolveServerPath(input: ResolveInput): Resolved {
  const name = binaryName(input.platform);
  if (input.setting) {
    if (input.exists(input.setting)) {
      return { path: input.setting, from: "setting" };
    }
    return { error: `crdLsp.server.path is set to "${input.setting}", but no file is there. Fix the setting, or clear it to use the bundled server or crd-lsp on PATH.` };
  }
  const bundled = path.join(input.extensionPath, "bin", `${input.platform}-${input.arch}`, name);
  if (input.exists(bundled)) {
    return { path: bundled, from: "bundled" };
  }
  const sep = input.platform === "win32" ? ";" : ":";
  for (const dir of input.pathEnv.split(sep)) {
    if (!dir) {
      continue;
    }
    const candidate = path.join(dir, name);
    if (input.exists(candidate)) {
      return { path: candidate, from: "PATH" };
    }
  }
  return {
    error:
      `crd-lsp was not found: this extension has no bundled server for ${input.platform}-${input.arch} and ${name} is not on PATH. ` +
      "Install it (go install github.com/crd-lsp/crd-lsp/cmd/crd-lsp@latest, and put $(go env GOPATH)/bin on PATH), install the .vsix built for this platform (editors/vscode/scripts/package-platforms.sh host), or set crdLsp.server.path.",
  };
}

/** serverArgs are the command-line arguments the extension starts the server with. */
export function serverArgs(settings: Record<string, unknown>): string[] {
  const args = ["--stdio"];
  if (typeof settings.logLevel === "string") {
    args.push("--log-level", settings.logLevel);
  }
  return args;
}

/** A work-done progress value as the server sends it in $/progress. */
export interface ProgressValue {
  kind: "begin" | "report" | "end";
  title?: string;
  message?: string;
  percentage?: number;
}

/**
 * progressStatus is the status bar text for the server's package pull
 * progress: spinning with the current step while it runs, back to the
 * ready state (with the summary as tooltip) when it ends.
 */
export function progressStatus(value: ProgressValue): { text: string; tooltip: string; busy: boolean; failedIn?: string } {
  if (value.kind === "end") {
    const msg = value.message ?? "packages ready";
    // "package pull failed: … — in /path/crossplane.yaml": the item says
    // so and opens that file, where the failures are diagnostics.
    const failed = /^package pull failed: (.*?)(?: — in (.+))?$/s.exec(msg);
    if (failed) {
      return {
        text: "$(warning) crd-lsp: pull failed",
        tooltip: `crd-lsp: package pull failed: ${failed[1]}${failed[2] ? ` (click to open ${failed[2]})` : ""}`,
        busy: false,
        ...(failed[2] ? { failedIn: failed[2] } : {}),
      };
    }
    return { text: "$(check) crd-lsp", tooltip: `crd-lsp: ${msg}`, busy: false };
  }
  const pct = value.percentage !== undefined ? ` ${value.percentage}%` : "";
  const msg = value.message ?? value.title ?? "working";
  return { text: `$(sync~spin) crd-lsp${pct}`, tooltip: `crd-lsp: ${msg} (click to cancel)`, busy: true };
}

/** The scheme of "Preview rendered" documents: read-only, never saved, never diagnosed. */
export const previewScheme = "crd-lsp-preview";

/** What a preview renders: the Composition's URI, a 0-based line in it, and optionally an example XR's path. */
export interface PreviewTarget {
  source: string;
  line: number;
  xr?: string;
}

/**
 * previewLocation is the path and query of a preview's URI: the path names
 * the tab ("Preview composition.yaml", YAML by its extension); the query
 * keeps the target, so each lens has a document of its own.
 */
export function previewLocation(target: PreviewTarget): { path: string; query: string } {
  const base = decodeURIComponent(target.source.replace(/[?#].*$/, "").split("/").pop() || "composition.yaml");
  const name = /\.ya?ml$/i.test(base) ? base : `${base}.yaml`;
  return { path: `/Preview ${name}`, query: JSON.stringify(target) };
}

/** previewTarget reads a preview URI's query back (undefined if it is not one). */
export function previewTarget(query: string): PreviewTarget | undefined {
  try {
    const t = JSON.parse(query) as PreviewTarget;
    return typeof t.source === "string" && typeof t.line === "number" ? t : undefined;
  } catch {
    return undefined;
  }
}

/** A text change as VS Code reports it: the replaced lines and the new text. */
export interface LineChange {
  startLine: number;
  endLine: number;
  text: string;
}

/**
 * shiftLine follows a line through edits (applied in order), so that a
 * preview keeps rendering the same resource while lines are added or
 * removed above it. An edit that replaces the line itself leaves it where
 * the edit starts.
 */
export function shiftLine(line: number, changes: readonly LineChange[]): number {
  for (const c of changes) {
    if (c.endLine < line) {
      line += (c.text.match(/\n/g)?.length ?? 0) - (c.endLine - c.startLine);
    } else if (c.startLine < line) {
      line = c.startLine;
    }
  }
  return Math.max(0, line);
}

/** A link in a preview: the FILE:LINE:COL span of a note (0-based line and columns in the preview) and its 1-based target. */
export interface NoteLink {
  line: number;
  start: number;
  end: number;
  targetLine: number;
  targetCol: number;
}

/**
 * noteLinks finds the notes crd-lsp writes at the top of a rendered preview
 * ("# composition.yaml:25:15: message"): each names the place in the
 * Composition it comes from.
 */
export function noteLinks(text: string): NoteLink[] {
  const out: NoteLink[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^# ([^:\n]+):(\d+):(\d+): /.exec(lines[i]);
    if (!m) {
      continue;
    }
    out.push({ line: i, start: 2, end: 2 + m[1].length + 1 + m[2].length + 1 + m[3].length, targetLine: Number(m[2]), targetCol: Number(m[3]) });
  }
  return out;
}
