// Drives the real VS Code workbench (code-server in Debian's Chromium,
// through playwright-core) the way a user would, for workbench_test.go:
//   node out/workbench/driver.js PLAN.json
// The plan (written by the Go test) says where the workbench runs, which
// files to open and what to wait for; the driver waits for each of those
// things to appear in the page, reads what the page shows (Problems panel
// rows, hover, completion list, code actions, lenses, the rendered preview,
// the status bar item), saves a screenshot per step and writes it all to
// plan.out as JSON. The Go test asserts on that JSON. Every wait is for a
// condition on the page with a deadline; there are no fixed pauses.

import * as fs from "fs";
import * as path from "path";
import { chromium, Page } from "playwright-core";

/** An expected Problems row: the line (1-based) and part of the message. */
interface Expect {
  line: number;
  message: string;
  severity?: string;
}

interface Plan {
  url: string;
  browser: string;
  shots: string;
  out: string;
  settingsFile: string;
  timeoutMs: number;
  resource: {
    file: string;
    expect: Expect[];
    hover: { line: number; col: number; wait: string };
    completeAfterLine: number;
    fix: { line: number; col: number; title: string; want: string };
    setting: { key: string; value: unknown; expect: Expect };
  };
  composition: {
    file: string;
    expect: Expect[];
    lens: string;
    wait: string;
    /** The preview's tab title. */
    previewTitle: string;
    /** An edit of the Composition the preview must follow: at line:col, type text; the preview then shows want. */
    follow: { line: number; col: number; text: string; want: string };
    /** A note of the preview that links back: its text, and where in the Composition it leads. */
    link: { text: string; line: number; col: number };
  };
}

/** A row of the Problems panel, as shown. */
interface Problem {
  file: string;
  severity: string;
  message: string;
  source: string;
  code: string;
  line: number;
  col: number;
}

interface Result {
  steps: string[];
  /** Seconds each step took, in order. */
  seconds: Record<string, number>;
  error?: string;
  status?: string;
  statusIcon?: string;
  problems: Record<string, Problem[]>;
  hover?: string;
  completion?: string[];
  completionLine?: string;
  codeActions?: string[];
  /** How often Ctrl+. was pressed before the fixes were listed. */
  quickFixTries?: number;
  fixedLine?: string;
  lenses?: string[];
  preview?: { title: string; lines: string[] };
  /** Whether typing into the preview was refused as read-only, and the preview tab was dirty afterwards. */
  previewReadOnly?: string;
  previewDirty?: boolean;
  /** The preview's lines after the Composition was edited. */
  previewFollowed?: string[];
  /** Where the preview's note link led: the active tab and the cursor. */
  linkTab?: string;
  linkByKeyboard?: boolean;
  linkCursor?: string;
  /** Whether closing the preview asked anything (a dialog). */
  closeDialog?: boolean;
}

const plan: Plan = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const result: Result = { steps: [], seconds: {}, problems: {} };
let shot = 0;

function write(): void {
  fs.writeFileSync(plan.out, JSON.stringify(result, null, 2));
}

/**
 * until polls check (which reads the page) until it returns a value, and
 * fails with what it last saw after the plan's deadline.
 */
async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + plan.timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) {
        return v;
      }
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${last})` : ""}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function screenshot(page: Page, name: string): Promise<void> {
  shot++;
  await page.screenshot({ path: path.join(plan.shots, `${String(shot).padStart(2, "0")}-${name}.png`) });
}

async function step(page: Page, name: string, body: () => Promise<void>): Promise<void> {
  result.steps.push(name);
  write();
  const start = Date.now();
  await body();
  result.seconds[name] = (Date.now() - start) / 1000;
  await screenshot(page, name);
}

/** quickInput opens a quick input with the keys, types text and accepts it. */
async function quickInput(page: Page, keys: string, text: string): Promise<void> {
  await page.keyboard.press(keys);
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: plan.timeoutMs });
  await page.keyboard.type(text);
  if (keys === "Control+P" || keys === "F1") {
    // Quick open and commands: accept once the item is listed first.
    const first = page.locator(".quick-input-list .monaco-list-row").first();
    await until(`${JSON.stringify(text)} first in the list`, async () => ((await first.innerText()).includes(text) ? true : undefined));
  }
  await page.keyboard.press("Enter");
  await input.waitFor({ state: "hidden", timeout: plan.timeoutMs });
}

async function openFile(page: Page, file: string): Promise<void> {
  await quickInput(page, "Control+P", file);
  await page.locator(`.tab.active[aria-label^="${file}"]`).waitFor({ timeout: plan.timeoutMs });
  await page.locator(".editor-group-container.active .monaco-editor .view-lines").waitFor({ timeout: plan.timeoutMs });
}

async function goTo(page: Page, line: number, col?: number): Promise<void> {
  await quickInput(page, "Control+G", col ? `${line}:${col}` : `${line}`);
  await until(`the cursor at line ${line}`, async () => {
    const text = await page.locator("#status\\.editor\\.selection").innerText();
    return text.startsWith(`Ln ${line}, Col ${col ?? 1}`) ? true : undefined;
  });
}

/** editorLines maps line numbers to the text the active editor (or the first editor under root) shows. */
async function editorLines(page: Page, root = ".editor-group-container.active"): Promise<Map<number, string>> {
  const pairs = await page.$$eval(`${root} .monaco-editor`, (editors) => {
    const ed = editors[0];
    if (!ed) {
      return [];
    }
    const top = (e: Element) => parseFloat((e as HTMLElement).style.top || "0");
    const numbers = new Map<number, number>();
    for (const n of Array.from(ed.querySelectorAll(".margin-view-overlays > div"))) {
      const num = n.querySelector(".line-numbers");
      if (num) {
        numbers.set(top(n), parseInt((num as HTMLElement).innerText, 10));
      }
    }
    return Array.from(ed.querySelectorAll(".view-lines > .view-line")).map((l) => [numbers.get(top(l)) ?? -1, (l as HTMLElement).innerText.replace(/\u00a0/g, " ")] as [number, string]);
  });
  return new Map(pairs.filter(([n]) => n > 0));
}

/** problems reads every row of the Problems panel (maximized so none is scrolled away). */
async function problems(page: Page): Promise<Problem[]> {
  return page.$$eval(".markers-panel .monaco-list-row", (rows) => {
    const out: Problem[] = [];
    let file = "";
    const sorted = rows.slice().sort((a, b) => parseInt(a.getAttribute("data-index") ?? "0", 10) - parseInt(b.getAttribute("data-index") ?? "0", 10));
    for (const row of sorted) {
      const label = row.querySelector(".label-name");
      if (label) {
        file = (label as HTMLElement).innerText;
        continue;
      }
      const icon = row.querySelector(".marker-icon");
      const text = (sel: string) => ((row.querySelector(sel) as HTMLElement | null)?.innerText ?? "").trim();
      const pos = /\[Ln (\d+), Col (\d+)\]/.exec(text(".marker-line"));
      out.push({
        file,
        severity: ["error", "warning", "info"].find((s) => icon?.classList.contains(s)) ?? "hint",
        message: text(".marker-message"),
        source: text(".marker-source"),
        code: text(".marker-code"),
        line: pos ? parseInt(pos[1], 10) : 0,
        col: pos ? parseInt(pos[2], 10) : 0,
      });
    }
    return out;
  });
}

function matches(p: Problem, file: string, e: Expect): boolean {
  return p.file === file && p.line === e.line && p.message.includes(e.message) && (!e.severity || p.severity === e.severity);
}

/**
 * waitProblems shows the Problems panel maximized, waits until check holds
 * for the file's rows, records them under key and restores the panel.
 */
async function waitProblems(page: Page, key: string, file: string, what: string, check: (rows: Problem[]) => boolean): Promise<void> {
  result.steps.push(`problems-${key}`);
  const start = Date.now();
  await page.keyboard.press("Control+Shift+M");
  await page.locator(".markers-panel").waitFor({ timeout: plan.timeoutMs });
  const maximize = page.locator('.part.panel a.action-label[aria-label^="Maximize Panel Size"]');
  const restore = page.locator('.part.panel a.action-label[aria-label^="Restore Panel Size"]');
  await maximize.click({ timeout: plan.timeoutMs });
  await restore.waitFor({ timeout: plan.timeoutMs });
  result.problems[key] = await until(what, async () => {
    const all = await problems(page);
    const rows = all.filter((p) => p.file === file);
    if (!check(rows)) {
      return undefined;
    }
    // Every file's rows too: the test checks what else is listed.
    result.problems[`${key}-all`] = all;
    return rows;
  });
  result.seconds[`problems-${key}`] = (Date.now() - start) / 1000;
  write();
  await screenshot(page, `problems-${key}`);
  await restore.click({ timeout: plan.timeoutMs });
  await maximize.waitFor({ timeout: plan.timeoutMs });
}

async function run(page: Page): Promise<void> {
  const r = plan.resource;
  const c = plan.composition;

  await step(page, "workbench", async () => {
    await page.goto(plan.url, { timeout: plan.timeoutMs });
    await page.locator(".monaco-workbench .part.statusbar").waitFor({ timeout: plan.timeoutMs });
  });

  await step(page, "open-resource", async () => {
    await openFile(page, r.file);
  });

  await step(page, "status", async () => {
    // The extension's item shows a check once the client is running.
    const item = page.locator('.statusbar-item[id="crd-lsp.crd-lsp"]');
    await until("the crd-lsp status item to show the running state", async () => ((await item.locator(".codicon-check").count()) > 0 ? true : undefined));
    result.status = (await item.getAttribute("aria-label")) ?? "";
    result.statusIcon = "check";
  });

  await waitProblems(page, "initial", r.file, `the Problems panel to list ${JSON.stringify(r.expect)}`, (rows) => r.expect.every((e) => rows.some((p) => matches(p, r.file, e))));

  await step(page, "hover", async () => {
    await page.locator(".editor-group-container.active .monaco-editor textarea").focus();
    await goTo(page, r.hover.line, r.hover.col);
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    const hover = page.locator(".monaco-hover:not(.hidden)");
    result.hover = await until(`a hover containing ${JSON.stringify(r.hover.wait)}`, async () => {
      const texts = await hover.allInnerTexts();
      return texts.find((t) => t.includes(r.hover.wait));
    });
  });
  await page.keyboard.press("Escape");

  await step(page, "completion", async () => {
    await goTo(page, r.completeAfterLine);
    await page.keyboard.press("End");
    await page.keyboard.press("Enter");
    await until("the new line", async () => ((await page.locator("#status\\.editor\\.selection").innerText()).startsWith(`Ln ${r.completeAfterLine + 1},`) ? true : undefined));
    await page.keyboard.press("Control+Space");
    const rows = page.locator(".suggest-widget.visible .monaco-list-row");
    result.completion = await until("completion items", async () => {
      const labels = await rows.evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
      return labels.length > 0 ? labels : undefined;
    });
    result.completionLine = (await editorLines(page)).get(r.completeAfterLine + 1);
  });
  // Back to the text on disk: close the list and undo the new line.
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+Z");
  await until("the undo to leave the file unmodified", async () => ((await page.locator(".tab.active.dirty").count()) === 0 ? true : undefined));

  await step(page, "settings-json", async () => {
    // A setting the extension passes to the server, changed in the user's
    // settings.json inside the workbench and saved, as a user would. (A
    // write from outside is not picked up: VS Code's server reads user
    // settings again only when the workbench itself saves them.)
    await quickInput(page, "F1", "Preferences: Open User Settings (JSON)");
    await page.locator('.tab.active[aria-label^="settings.json"]').waitFor({ timeout: plan.timeoutMs });
    await page.locator(".editor-group-container.active .monaco-editor textarea").focus();
    // A new first entry, typed after the opening brace.
    await goTo(page, 1);
    await page.keyboard.press("End");
    await page.keyboard.press("Enter");
    await page.keyboard.type(`${JSON.stringify(r.setting.key)}: ${JSON.stringify(r.setting.value)},`);
    await page.keyboard.press("Control+S");
    await until("settings.json to be saved", async () => {
      if ((await page.locator(".tab.active.dirty").count()) > 0) {
        return undefined;
      }
      const saved = JSON.parse(fs.readFileSync(plan.settingsFile, "utf8"));
      return saved[r.setting.key] === r.setting.value ? true : undefined;
    });
  });
  await waitProblems(page, "setting", r.file, `the Problems panel to show ${JSON.stringify(r.setting.expect)}`, (rows) => rows.some((p) => matches(p, r.file, r.setting.expect)));

  await step(page, "quick-fix", async () => {
    await openFile(page, r.file);
    await page.locator(".editor-group-container.active .monaco-editor textarea").focus();
    await goTo(page, r.fix.line, r.fix.col);
    // Ctrl+. asks for the code actions at the cursor. VS Code cancels a
    // request when the file's diagnostics change meanwhile and then says
    // "No code actions available"; a user asks again, and so does this.
    const rows = page.locator(".action-widget .monaco-list-row.action");
    result.quickFixTries = 0;
    result.codeActions = await until("code actions", async () => {
      if (!(await rows.count())) {
        await page.keyboard.press("Escape");
        result.quickFixTries = (result.quickFixTries ?? 0) + 1;
        await page.keyboard.press("Control+.");
        await page.locator(".action-widget .monaco-list-row.action, .monaco-editor-overlaymessage").first().waitFor();
      }
      const labels = await rows.evaluateAll((els) => els.map((e) => (e as HTMLElement).innerText.trim()));
      return labels.includes(r.fix.title) ? labels : undefined;
    });
    // Choose it with the keyboard, as the widget says ("Enter to Apply").
    const focused = page.locator(".action-widget .monaco-list-row.action.focused");
    for (let i = 0; i <= result.codeActions.length && (await focused.innerText()).trim() !== r.fix.title; i++) {
      await page.keyboard.press("ArrowDown");
    }
    await page.keyboard.press("Enter");
    result.fixedLine = await until(`line ${r.fix.line} to read ${JSON.stringify(r.fix.want)}`, async () => {
      const line = (await editorLines(page)).get(r.fix.line);
      return line === r.fix.want ? line : undefined;
    });
  });
  await waitProblems(page, "fixed", r.file, `the Problems panel without the fixed diagnostic`, (rows) => rows.length > 0 && !rows.some((p) => p.code === "unknown-field"));

  await step(page, "open-composition", async () => {
    await openFile(page, c.file);
  });

  await step(page, "lens", async () => {
    const lenses = page.locator(".editor-group-container.active .codelens-decoration a");
    result.lenses = await until(`a ${JSON.stringify(c.lens)} lens`, async () => {
      const titles = (await lenses.allInnerTexts()).map((t) => t.trim());
      return titles.includes(c.lens) ? titles : undefined;
    });
    await lenses.filter({ hasText: new RegExp(`^${c.lens}$`) }).first().click();
    result.preview = await until(`the rendered YAML containing ${JSON.stringify(c.wait)}`, async () => {
      const title = await page.locator(".editor-group-container.active .tab.active").getAttribute("aria-label");
      const lines = Array.from((await editorLines(page)).entries()).sort((a, b) => a[0] - b[0]).map(([, t]) => t);
      return title && !title.startsWith(c.file) && lines.some((l) => l.includes(c.wait)) ? { title, lines } : undefined;
    });
  });
  await step(page, "preview-read-only", async () => {
    // Typing into the preview is refused; the tab never turns dirty.
    await page.locator(".editor-group-container.active .monaco-editor textarea").focus();
    await page.keyboard.press("End");
    await page.keyboard.type("x");
    result.previewReadOnly = await until("the read-only message", async () => {
      const msgs = await page.locator(".monaco-editor-overlaymessage").allInnerTexts();
      return msgs.find((m) => /read-only/i.test(m));
    });
    result.previewDirty = (await page.locator(`.tab.dirty[aria-label^="${c.previewTitle}"]`).count()) > 0;
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+Home");
  });

  // The group that shows the preview, whichever is active.
  const previewGroup = `.editor-group-container:has(.tab.active[aria-label^="${c.previewTitle}"])`;
  await step(page, "preview-follows", async () => {
    await quickInput(page, "F1", "View: Focus First Editor Group");
    await page.locator(`.editor-group-container.active .tab.active[aria-label^="${c.file}"]`).waitFor({ timeout: plan.timeoutMs });
    await page.locator(".editor-group-container.active .monaco-editor textarea").focus();
    await goTo(page, c.follow.line, c.follow.col);
    await page.keyboard.type(c.follow.text);
    result.previewFollowed = await until(`the preview to show ${JSON.stringify(c.follow.want)}`, async () => {
      const lines = Array.from((await editorLines(page, previewGroup)).values());
      return lines.some((l) => l.includes(c.follow.want)) ? lines : undefined;
    });
    await page.keyboard.press("Control+Z");
    await until("the undo to leave the Composition unmodified", async () => ((await page.locator(`.tab.dirty[aria-label^="${c.file}"]`).count()) === 0 ? true : undefined));
  });

  // The preview is open: the Problems panel lists the Composition's rows,
  // and none of the preview's.
  await waitProblems(page, "composition", c.file, `the Problems panel to list ${JSON.stringify(c.expect)}`, (rows) => c.expect.every((e) => rows.some((p) => matches(p, c.file, e))));

  await step(page, "preview-link", async () => {
    // Ctrl+click on a note's FILE:LINE:COL opens the Composition there.
    await page.locator(`.tab[aria-label^="${c.previewTitle}"]`).first().click();
    await page.locator(`.editor-group-container.active .tab.active[aria-label^="${c.previewTitle}"]`).waitFor({ timeout: plan.timeoutMs });
    const link = page.locator(`.editor-group-container.active .view-line span.detected-link`, { hasText: c.link.text });
    await until("the note's link", async () => ((await link.count()) > 0 ? true : undefined));
    try {
      await link.first().click({ modifiers: ["Control"], timeout: 15000 });
    } catch {
      // The preview re-renders as the Composition's findings are published
      // again, and a click can keep landing between two renderings: open
      // the same detected link from the keyboard instead (Open Link, the
      // cursor on it).
      result.linkByKeyboard = true;
      const lines = await editorLines(page);
      const at = Array.from(lines.entries()).find(([, t]) => t.includes(c.link.text));
      if (!at) {
        throw new Error(`no preview line shows ${c.link.text}`);
      }
      await goTo(page, at[0], at[1].indexOf(c.link.text) + 2);
      await quickInput(page, "F1", "Open Link");
    }
    const cursor = `Ln ${c.link.line}, Col ${c.link.col}`;
    await until(`the Composition at ${cursor}`, async () => {
      const tab = await page.locator(".editor-group-container.active .tab.active").getAttribute("aria-label");
      const sel = await page.locator("#status\\.editor\\.selection").innerText();
      if (tab?.startsWith(c.file) && sel.startsWith(cursor)) {
        result.linkTab = tab;
        result.linkCursor = sel;
        return true;
      }
      return undefined;
    });
  });

  await step(page, "preview-close", async () => {
    // Closing the preview asks nothing: it is no unsaved buffer.
    const tab = page.locator(`.tab[aria-label^="${c.previewTitle}"]`);
    await tab.first().click();
    await page.locator(`.editor-group-container.active .tab.active[aria-label^="${c.previewTitle}"]`).waitFor({ timeout: plan.timeoutMs });
    // The tab's close button, as a user closes it.
    await page.locator(`.tab.active[aria-label^="${c.previewTitle}"] .tab-actions a.action-label`).first().click();
    await until("the preview to close, or a dialog", async () => ((await tab.count()) === 0 || (await page.locator(".monaco-dialog-box").count()) > 0 ? true : undefined));
    result.closeDialog = (await page.locator(".monaco-dialog-box").count()) > 0;
  });
}

(async () => {
  fs.mkdirSync(plan.shots, { recursive: true });
  const browser = await chromium.launch({
    executablePath: plan.browser,
    // As root Chromium needs --no-sandbox; no GPU and a small /dev/shm here.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  page.setDefaultTimeout(plan.timeoutMs);
  page.setDefaultNavigationTimeout(plan.timeoutMs);
  try {
    await run(page);
  } catch (e) {
    result.error = `${result.steps[result.steps.length - 1] ?? "start"}: ${e instanceof Error ? e.message : e}`;
    await screenshot(page, "failed").catch(() => undefined);
  } finally {
    write();
    await browser.close();
  }
  process.exit(result.error ? 1 : 0);
})();
