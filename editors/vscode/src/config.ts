// Logic of the extension that does not need VS Code, so that it can be
// unit-tested with node:test: settings mapping and finding the server.

import * as path from "path";

/** The settings the extension contributes, as dotted keys under crdLsp. */
export const settingKeys = [
  "crossplaneVersion",
  "schemas.include",
  "schemas.exclude",
  "schemas.maxFileSize",
  "validation.unknownKind",
  "validation.compositionMode",
  "validation.clientKinds",
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
  "allowRemoteFunctions",
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
      "Install it (go install ./cmd/crd-lsp from the crd-lsp repository) or set crdLsp.server.path.",
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
export function progressStatus(value: ProgressValue): { text: string; tooltip: string; busy: boolean } {
  if (value.kind === "end") {
    return { text: "$(check) crd-lsp", tooltip: `crd-lsp: ${value.message ?? "packages ready"}`, busy: false };
  }
  const pct = value.percentage !== undefined ? ` ${value.percentage}%` : "";
  const msg = value.message ?? value.title ?? "working";
  return { text: `$(sync~spin) crd-lsp${pct}`, tooltip: `crd-lsp: ${msg} (click to cancel)`, busy: true };
}
