// The VS Code side: starts fslens as the F# language server and wires its commands to native
// UI. The logic (arguments, result mapping, status text) lives in ./logic, which has no
// `vscode` import and is unit-tested with Node's test runner. With Ionide installed it offers
// Ionide mode (./ionide): Ionide's FSAC runs behind fslens, the extension starts no language
// client and its commands join that session over the session socket.

import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  Middleware,
  ServerOptions,
  State,
  WorkspaceEdit,
} from "vscode-languageclient/node";

import { checkArguments, CheckResult, CheckScope, nearestProject, problemsByFile, verdictMessage } from "./logic/check";
import { describeError } from "./logic/common";
import {
  collectPages,
  fieldImpactArguments,
  findArguments,
  FindResult,
  findSummary,
  siteLocations,
  SiteTreeFile,
  SiteTreeSite,
  siteTree,
} from "./logic/find";
import { renameAppliedOutcome, renameArguments, RenamePreview, renamePreview, RenameResult } from "./logic/renamePreview";
import {
  HierarchyItem,
  subtypeItems,
  supertypeItems,
  typeHierarchyArguments,
  TypeHierarchyResult,
  typeItem,
  urisToRead,
} from "./logic/typeHierarchy";
import {
  runReport,
  RunTestsResult,
  runSelection,
  RunReport,
  RunSelection,
  TestPick,
  testPicks,
  testsForSymbolArguments,
  TestsForSymbolResult,
  testsSummary,
} from "./logic/tests";
import {
  AffectedPick,
  affectedPicks,
  affectedRunReport,
  affectedSummary,
  affectedTestsArguments,
  AffectedTestsResult,
  runPlan,
} from "./logic/affectedTests";
import { exposeChoices, makeVisibleArguments, MakeVisibleResult, makeVisibleOutcome } from "./logic/makeVisible";
import { bundledBinary, resolveServerBinary, serverCommand, ServerSettings } from "./logic/server";
import { needsFullStatus, projectNames, StatusLike, statusPresentation, StatusTracker } from "./logic/status";
import {
  askToShare,
  declined,
  ionideInstalled,
  IonideHost,
  IonideSession,
  renewSharing,
  sharingNow,
  startSharing,
  stopSharing,
} from "./ionide";

let client: LanguageClient | undefined;
/** In Ionide mode: the connection to the session Ionide's fslens serves (then no `client`). */
let ionideSession: IonideSession | undefined;
let output: vscode.OutputChannel;
let statusItem: vscode.StatusBarItem;
let problems: vscode.DiagnosticCollection;
/** The last test run: its results, and problems at its failures' frames. */
let testsOutput: vscode.OutputChannel;
let testFailures: vscode.DiagnosticCollection;
/** What the status bar shows: notifications and answers to `fslens.status`, in their true order. */
const statusTracker = new StatusTracker();
let sitesView: SitesView;

type SitesNode = SiteTreeFile | SiteTreeSite;

/** The fslens Sites view: the last Find All Sites or Field Impact, by file, kind and type. */
class SitesView implements vscode.TreeDataProvider<SitesNode> {
  private files: SiteTreeFile[] = [];
  private readonly changed = new vscode.EventEmitter<SitesNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly view: vscode.TreeView<SitesNode>;

  constructor() {
    this.view = vscode.window.createTreeView("fslens.sites", { treeDataProvider: this, showCollapseAll: true });
  }

  async show(files: SiteTreeFile[], summary: string, count: number) {
    this.files = files;
    this.view.message = summary;
    this.view.description = `${count} site${count === 1 ? "" : "s"}`;
    this.changed.fire(undefined);
    await vscode.commands.executeCommand("setContext", "fslens.hasSites", true);
    await vscode.commands.executeCommand("fslens.sites.focus");
  }

  getChildren(node?: SitesNode): SitesNode[] {
    return node === undefined ? this.files : "sites" in node ? node.sites : [];
  }

  getTreeItem(node: SitesNode): vscode.TreeItem {
    if ("sites" in node) {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
      item.description = node.description;
      item.resourceUri = vscode.Uri.file(node.path);
      item.iconPath = vscode.ThemeIcon.File;
      return item;
    }
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.command = {
      title: "Open",
      command: "vscode.open",
      arguments: [vscode.Uri.file(node.path), { selection: toRange(node.range) }],
    };
    return item;
  }

  dispose() {
    this.view.dispose();
    this.changed.dispose();
  }
}

function settings() {
  return vscode.workspace.getConfiguration("fslens");
}

function workspaceRoot(): string | undefined {
  const editor = vscode.window.activeTextEditor;
  const folder =
    (editor && vscode.workspace.getWorkspaceFolder(editor.document.uri)) ?? vscode.workspace.workspaceFolders?.[0];
  return statusTracker.current?.workspaceRoot ?? folder?.uri.fsPath;
}

function showStatus(status: StatusLike | undefined) {
  const presentation = statusPresentation(status);
  statusItem.text = ionideSession ? `${presentation.text} · Ionide` : presentation.text;
  statusItem.tooltip = ionideSession
    ? `${presentation.tooltip}\nSharing Ionide's FSAC: its fslens session runs these commands`
    : presentation.tooltip;
  statusItem.backgroundColor =
    presentation.severity === "error"
      ? new vscode.ThemeColor("statusBarItem.errorBackground")
      : presentation.severity === "warning"
        ? new vscode.ThemeColor("statusBarItem.warningBackground")
        : undefined;
  statusItem.show();
}

/** Middleware that keeps fslens quiet where Ionide already answers (fslens.alongsideIonide). */
function quietMiddleware(): Middleware {
  const none = () => undefined;
  return {
    handleDiagnostics: () => undefined,
    provideCompletionItem: none,
    provideHover: none,
    provideSignatureHelp: none,
    provideDefinition: none,
    provideTypeDefinition: none,
    provideImplementation: none,
    provideReferences: none,
    provideDocumentHighlights: none,
    provideDocumentSymbols: none,
    provideWorkspaceSymbols: none,
    provideCodeActions: none,
    provideCodeLenses: none,
    provideDocumentFormattingEdits: none,
    provideDocumentRangeFormattingEdits: none,
    provideRenameEdits: none,
    prepareRename: none,
    provideDocumentLinks: none,
    provideFoldingRanges: none,
    provideSelectionRanges: none,
    provideInlayHints: none,
    provideOnTypeFormattingEdits: none,
  };
}

/** The fslens binary of a platform .vsix, made executable if the unpacking lost its mode. */
function bundledFslens(context: vscode.ExtensionContext): string | undefined {
  const binary = context.asAbsolutePath(bundledBinary(process.platform));
  try {
    const mode = fs.statSync(binary).mode;
    if (process.platform !== "win32" && (mode & 0o111) === 0) {
      fs.chmodSync(binary, mode | 0o755);
    }
    return binary;
  } catch {
    return undefined;
  }
}

function serverSettings(context: vscode.ExtensionContext): ServerSettings {
  const config = settings();
  return {
    path: config.get<string>("path"),
    bundledPath: bundledFslens(context),
    fsacCommand: config.get<string>("fsac.command"),
    fsacArgs: config.get<string[]>("fsac.args"),
    args: config.get<string[]>("args"),
    logLevel: config.get<string>("logLevel"),
    fsacMemoryLimit: config.get<string>("fsacMemoryLimit"),
  };
}

async function startClient(context: vscode.ExtensionContext) {
  const config = settings();
  const { command, args } = serverCommand(serverSettings(context));
  output.appendLine(`starting: ${command} ${args.join(" ")}`);
  const serverOptions: ServerOptions = { command, args, options: { env: process.env } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "fsharp" },
      { scheme: "untitled", language: "fsharp" },
    ],
    outputChannel: output,
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.{fs,fsi,fsx,fsproj,sln,slnx}") },
    middleware: config.get<boolean>("alongsideIonide") ? quietMiddleware() : undefined,
  };
  client = new LanguageClient("fslens", "fslens (F#)", serverOptions, clientOptions);
  client.onDidChangeState((event) => {
    if (event.newState === State.Stopped) {
      statusTracker.reset({ ...(statusTracker.current ?? {}), state: "crashed", reason: "fslens stopped (see the fslens output)" });
      showStatus(statusTracker.current);
    }
  });
  statusTracker.reset({ state: "starting", reason: "fslens is starting" });
  showStatus(statusTracker.current);
  // Registered before start so that the first notifications (starting, loading) are seen.
  client.onNotification("fslens/status", (params: StatusLike) => {
    const refresh = needsFullStatus(params);
    statusTracker.notified(params);
    showStatus(statusTracker.current);
    if (refresh) {
      const sent = statusTracker.requested();
      void execute<StatusLike>("fslens.status", {}).then(
        (status) => {
          statusTracker.answered(sent, status);
          showStatus(statusTracker.current);
        },
        (error) => output.appendLine(`fslens.status failed: ${describeError(error)}`),
      );
    }
  });
  await client.start();
  try {
    const sent = statusTracker.requested();
    statusTracker.answered(sent, await execute<StatusLike>("fslens.status", {}));
    showStatus(statusTracker.current);
  } catch (error) {
    output.appendLine(`fslens.status failed: ${describeError(error)}`);
  }
  context.subscriptions.push({ dispose: () => void client?.stop() });
}

async function execute<T>(command: string, argument: Record<string, unknown>, token?: vscode.CancellationToken): Promise<T> {
  if (ionideSession) {
    return ionideSession.execute<T>(command, argument, token);
  }
  if (!client || !client.isRunning()) {
    throw new Error("fslens is not running (see the fslens output)");
  }
  return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [argument] }, token) as Promise<T>;
}

function toRange(range: { start: { line: number; character: number }; end: { line: number; character: number } }) {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

function activeFsharpEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  return editor && editor.document.languageId === "fsharp" ? editor : undefined;
}

function position(editor: vscode.TextEditor) {
  // VS Code positions are UTF-16 like LSP's.
  const at = editor.selection.active;
  return { path: editor.document.uri.fsPath, line: at.line, character: at.character };
}

async function report(level: "info" | "warning" | "error", text: string, ...actions: string[]) {
  output.appendLine(text);
  const show =
    level === "error"
      ? vscode.window.showErrorMessage
      : level === "warning"
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  return show(text, ...actions);
}

async function findCommand(kind: "find" | "fieldImpact") {
  const title = kind === "find" ? "Find All Sites" : "Field Impact";
  const editor = activeFsharpEditor();
  const word = editor ? editor.document.getText(editor.document.getWordRangeAtPosition(editor.selection.active)) : "";
  const query = await vscode.window.showInputBox({
    title: `F#: ${title}`,
    prompt:
      kind === "find"
        ? "A symbol (e.g. Shipment.Weight), or leave empty for the symbol at the cursor"
        : "A record field (e.g. Shipment.Weight), or leave empty for the field at the cursor",
    value: "",
    placeHolder: word,
  });
  if (query === undefined) {
    return;
  }
  const config = settings();
  const request = {
    query,
    position: editor ? position(editor) : undefined,
    maxResults: config.get<number>("find.maxResults"),
  };
  const build = kind === "find" ? findArguments : fieldImpactArguments;
  const command = kind === "find" ? "fslens.find" : "fslens.fieldImpact";
  try {
    build(request); // validate before showing progress
  } catch (error) {
    return report("warning", String((error as Error).message));
  }
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `F#: ${title}`, cancellable: true },
    (progress, token) =>
      collectPages(
        (cursor) => execute<FindResult>(command, build(request, cursor), token),
        config.get<number>("find.maxPages") ?? 10,
        (pages, sites) => progress.report({ message: `${sites} site(s), page ${pages}` }),
      ),
  ).then(
    (value) => value,
    (error) => {
      void report("error", `F#: ${title} failed: ${describeError(error)}`);
      return undefined;
    },
  );
  if (!outcome) {
    return;
  }
  const root = workspaceRoot() ?? "";
  const locations = siteLocations(outcome.result.sites, root);
  const summary = findSummary(`F#: ${title} ${query || "(at cursor)"}`, outcome.result, outcome.morePages);
  output.appendLine(summary);
  if (locations.length === 0) {
    return report(outcome.result.outcome === "indeterminate" ? "warning" : "info", summary);
  }
  const results = config.get<string>("results") ?? "tree";
  if (results === "tree") {
    return sitesView.show(siteTree(outcome.result.sites, root), summary, locations.length);
  }
  if (results === "quickPick" || !editor) {
    const picked = await vscode.window.showQuickPick(
      locations.map((location) => ({ ...location, label: location.label })),
      { title: summary, matchOnDescription: true, matchOnDetail: true },
    );
    if (picked) {
      const document = await vscode.workspace.openTextDocument(vscode.Uri.file(picked.path));
      await vscode.window.showTextDocument(document, { selection: toRange(picked.range) });
    }
    return;
  }
  void vscode.window.setStatusBarMessage(summary, 10000);
  await vscode.commands.executeCommand(
    "editor.action.showReferences",
    editor.document.uri,
    editor.selection.active,
    locations.map((location) => new vscode.Location(vscode.Uri.file(location.path), toRange(location.range))),
  );
}

async function checkCommand() {
  const editor = activeFsharpEditor();
  const picked = await vscode.window.showQuickPick(
    [
      ...(editor ? [{ label: "File", description: path.basename(editor.document.uri.fsPath), scope: "file" as CheckScope }] : []),
      ...(editor ? [{ label: "Project", description: "the active file's project", scope: "project" as CheckScope }] : []),
      { label: "Workspace", description: "every project", scope: "workspace" as CheckScope },
    ],
    { title: "F#: Check" },
  );
  if (!picked) {
    return;
  }
  let args: Record<string, unknown>;
  try {
    const filePath = editor?.document.uri.fsPath;
    args = checkArguments({
      scope: picked.scope,
      filePath,
      projectPath:
        picked.scope === "project" && filePath
          ? nearestProject(filePath, (directory) => {
              try {
                return fs.readdirSync(directory);
              } catch {
                return [];
              }
            })
          : undefined,
    });
  } catch (error) {
    return report("warning", (error as Error).message);
  }
  const result = await vscode.window
    .withProgress({ location: vscode.ProgressLocation.Notification, title: "F#: Check", cancellable: true }, (_progress, token) =>
      execute<CheckResult>("fslens.check", args, token),
    )
    .then(
      (value) => value,
      (error) => {
        void report("error", `F#: Check failed: ${describeError(error)}`);
        return undefined;
      },
    );
  if (!result) {
    return;
  }
  if (picked.scope === "workspace") {
    problems.clear();
  }
  for (const [file, entries] of problemsByFile(result, workspaceRoot() ?? "")) {
    problems.set(
      vscode.Uri.file(file),
      entries.map((entry) => {
        const diagnostic = new vscode.Diagnostic(toRange(entry.range), entry.message, entry.severity as vscode.DiagnosticSeverity);
        diagnostic.code = entry.code;
        diagnostic.source = entry.source;
        return diagnostic;
      }),
    );
  }
  const verdict = verdictMessage(result);
  const action = await report(verdict.level, verdict.text, ...(result.diagnostics?.length ? ["Show Problems"] : []));
  if (action === "Show Problems") {
    await vscode.commands.executeCommand("workbench.actions.view.problems");
  }
}

async function makeVisibleCommand() {
  const editor = activeFsharpEditor();
  if (!editor) {
    return report("warning", "F#: Make Internal Visible: put the cursor on a private declaration's name in an F# file");
  }
  const choice = await vscode.window.showQuickPick(exposeChoices(projectNames(statusTracker.current)), {
    title: "F#: Make Internal Visible — expose to project",
  });
  if (!choice) {
    return;
  }
  try {
    // In Ionide mode fslens sends the edit to Ionide's client (workspace/applyEdit), which
    // applies it in the buffers: this extension has no client to convert it with.
    const result = await execute<MakeVisibleResult>(
      "fslens.makeInternalVisible",
      makeVisibleArguments({ ...position(editor), exposeTo: choice.exposeTo, apply: ionideSession !== undefined }),
    );
    const outcome = makeVisibleOutcome(result);
    if (outcome.applyLocally && result.edits && client) {
      const edit = await client.protocol2CodeConverter.asWorkspaceEdit(result.edits as WorkspaceEdit);
      if (!(await vscode.workspace.applyEdit(edit))) {
        return report("error", "F#: Make Internal Visible: VS Code did not apply the edit");
      }
    }
    await report(outcome.level, outcome.text);
  } catch (error) {
    await report("error", `F#: Make Internal Visible failed: ${describeError(error)}`);
  }
}

/** What each shown type hierarchy item was made from (VS Code's items carry no data of ours). */
const hierarchyItems = new WeakMap<vscode.TypeHierarchyItem, HierarchyItem>();

function toTypeHierarchyItem(item: HierarchyItem): vscode.TypeHierarchyItem {
  const shown = new vscode.TypeHierarchyItem(
    item.kind === "object" ? vscode.SymbolKind.Object : vscode.SymbolKind.Class,
    item.name,
    item.detail,
    vscode.Uri.parse(item.uri),
    toRange(item.range),
    toRange(item.selectionRange),
  );
  hierarchyItems.set(shown, item);
  return shown;
}

/** The lines of each file the items are named from: an open buffer's text, else the file's. */
async function linesOfFiles(uris: string[]): Promise<(uri: string) => string[] | undefined> {
  const texts = new Map<string, string[]>();
  for (const uri of uris) {
    try {
      const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
      texts.set(uri, document.getText().split(/\r?\n/));
    } catch (error) {
      output.appendLine(`type hierarchy: cannot read ${uri}: ${describeError(error)}`);
    }
  }
  return (uri) => texts.get(uri);
}

async function typeHierarchyAt(uri: vscode.Uri, at: vscode.Position, token: vscode.CancellationToken) {
  return execute<TypeHierarchyResult>(
    "fslens.typeHierarchy",
    typeHierarchyArguments({ path: uri.fsPath, line: at.line, character: at.character }),
    token,
  );
}

/** F#'s type hierarchy, which FSAC does not answer: fslens.typeHierarchy at each item. */
class FslensTypeHierarchyProvider implements vscode.TypeHierarchyProvider {
  async prepareTypeHierarchy(document: vscode.TextDocument, at: vscode.Position, token: vscode.CancellationToken) {
    try {
      const item = typeItem(await typeHierarchyAt(document.uri, at, token));
      return item ? [toTypeHierarchyItem(item)] : undefined;
    } catch (error) {
      output.appendLine(`F#: Type Hierarchy: ${describeError(error)}`);
      void vscode.window.setStatusBarMessage(`F#: Type Hierarchy: ${describeError(error)}`, 10000);
      return undefined;
    }
  }

  provideTypeHierarchySupertypes(item: vscode.TypeHierarchyItem, token: vscode.CancellationToken) {
    return this.related(item, token, supertypeItems);
  }

  provideTypeHierarchySubtypes(item: vscode.TypeHierarchyItem, token: vscode.CancellationToken) {
    return this.related(item, token, subtypeItems);
  }

  private async related(
    item: vscode.TypeHierarchyItem,
    token: vscode.CancellationToken,
    items: (result: TypeHierarchyResult, linesOf: (uri: string) => string[] | undefined) => HierarchyItem[],
  ) {
    // A row whose own declaration is not known: asking at it would answer its parent again.
    if (hierarchyItems.get(item)?.expandable === false) {
      return [];
    }
    try {
      const result = await typeHierarchyAt(item.uri, item.selectionRange.start, token);
      return items(result, await linesOfFiles(urisToRead(result))).map(toTypeHierarchyItem);
    } catch (error) {
      output.appendLine(`F#: Type Hierarchy of ${item.name}: ${describeError(error)}`);
      return [];
    }
  }
}

async function typeHierarchyCommand() {
  const editor = activeFsharpEditor();
  if (!editor) {
    return report("warning", "F#: Type Hierarchy: put the cursor on a type's name in an F# file");
  }
  await vscode.commands.executeCommand("editor.showTypeHierarchy");
}

/** The last rename preview, as a read-only document (fslens-rename:preview). */
let renamePreviewText = "";
const RENAME_PREVIEW_URI = vscode.Uri.parse("fslens-rename:Rename%20Preview");
const renamePreviewChanged = new vscode.EventEmitter<vscode.Uri>();

async function renamePreviewCommand() {
  const editor = activeFsharpEditor();
  if (!editor) {
    return report("warning", "F#: Rename with Preview: put the cursor on a symbol in an F# file");
  }
  const wordRange = editor.document.getWordRangeAtPosition(editor.selection.active);
  const word = wordRange ? editor.document.getText(wordRange) : "";
  const newName = await vscode.window.showInputBox({ title: "F#: Rename with Preview", prompt: "The new name", value: word });
  if (newName === undefined) {
    return;
  }
  let request: ReturnType<typeof position> & { newName: string };
  try {
    request = { ...position(editor), newName };
    renameArguments(request); // validate before showing progress
  } catch (error) {
    return report("warning", (error as Error).message);
  }
  const result = await vscode.window
    .withProgress({ location: vscode.ProgressLocation.Notification, title: "F#: Rename with Preview", cancellable: true }, (_progress, token) =>
      execute<RenameResult>("fslens.rename", renameArguments(request), token),
    )
    .then(
      (value) => value,
      (error) => {
        void report("error", `F#: Rename with Preview failed: ${describeError(error)}`);
        return undefined;
      },
    );
  if (!result) {
    return;
  }
  const preview = renamePreview(result, workspaceRoot() ?? "");
  output.appendLine(preview.text);
  await showRenamePreviewDocument(preview);
  if (await pickFromRenamePreview(preview)) {
    try {
      // fslens sends the edit to the editor's client as workspace/applyEdit: nothing is written to disk.
      const applied = await execute<RenameResult>("fslens.rename", renameArguments(request, "editor"));
      const outcome = renameAppliedOutcome(applied);
      await report(outcome.level, outcome.text);
    } catch (error) {
      await report("error", `F#: Rename with Preview: applying failed: ${describeError(error)}`);
    }
  }
}

async function showRenamePreviewDocument(preview: RenamePreview) {
  renamePreviewText = preview.text;
  renamePreviewChanged.fire(RENAME_PREVIEW_URI);
  const document = await vscode.workspace.openTextDocument(RENAME_PREVIEW_URI);
  await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
}

/** The preview as a quick pick: true when Apply is picked; a site or line picked is opened. */
async function pickFromRenamePreview(preview: RenamePreview): Promise<boolean> {
  const separators = new Set(["missedHeader", "fileHeader"]);
  const picked = await vscode.window.showQuickPick(
    preview.rows.map((row) => ({
      ...row,
      kind: separators.has(row.kind) ? vscode.QuickPickItemKind.Separator : vscode.QuickPickItemKind.Default,
      rowKind: row.kind,
      label:
        row.kind === "apply"
          ? `$(check) ${row.label}`
          : row.kind === "incomplete" || row.kind === "missed"
            ? `$(warning) ${row.label}`
            : separators.has(row.kind)
              ? `${row.label}${row.description ? ` — ${row.description}` : ""}`
              : row.label,
    })),
    { title: preview.title, matchOnDescription: true, matchOnDetail: true, ignoreFocusOut: true },
  );
  if (!picked) {
    return false;
  }
  if (picked.rowKind === "apply") {
    return true;
  }
  if (picked.path && picked.range) {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(picked.path));
    await vscode.window.showTextDocument(document, { selection: toRange(picked.range), preserveFocus: false });
  }
  // Looking at a site is not a decision: the preview comes back until Apply or Escape.
  return pickFromRenamePreview(preview);
}

/** A test row of a quick pick: its text, whether it starts checked, and where the test is. */
interface PickableTest {
  label: string;
  description: string;
  detail: string;
  picked: boolean;
  /** Absolute path, 0-based line. */
  path: string;
  line: number;
}

type TestPickItem<T extends PickableTest> = vscode.QuickPickItem & { pick: T };

/**
 * The tests in a quick pick of several choices: the runnable ones checked, so Enter runs them
 * all; each row's button opens the test. Resolves to the checked tests, or undefined when the
 * pick is dismissed (or left to open a test).
 */
function pickTests<T extends PickableTest>(picks: T[], title: string): Promise<T[] | undefined> {
  const quickPick = vscode.window.createQuickPick<TestPickItem<T>>();
  const open: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("go-to-file"), tooltip: "Go to the test" };
  const items = picks.map((pick) => ({
    label: pick.label,
    description: pick.description,
    detail: pick.detail,
    buttons: [open],
    pick,
  }));
  quickPick.title = `fslens: ${title}`;
  quickPick.placeholder = "Enter runs the checked tests; a row's button opens it";
  quickPick.canSelectMany = true;
  quickPick.matchOnDescription = true;
  quickPick.matchOnDetail = true;
  quickPick.items = items;
  quickPick.selectedItems = items.filter((item) => item.pick.picked);
  return new Promise((resolve) => {
    let settled = false;
    const settle = (value: T[] | undefined) => {
      if (!settled) {
        settled = true;
        resolve(value);
        quickPick.dispose();
      }
    };
    quickPick.onDidAccept(() => settle(quickPick.selectedItems.map((item) => item.pick)));
    quickPick.onDidHide(() => settle(undefined));
    quickPick.onDidTriggerItemButton(async (event) => {
      settle(undefined);
      const document = await vscode.workspace.openTextDocument(vscode.Uri.file(event.item.pick.path));
      const at = new vscode.Position(event.item.pick.line, 0);
      await vscode.window.showTextDocument(document, { selection: new vscode.Range(at, at) });
    });
    quickPick.show();
  });
}

/** fslens: Tests of the symbol under the cursor — testsForSymbol, a quick pick, runTests of the picked. */
async function testsForSymbolCommand() {
  const title = "Tests of the symbol under the cursor";
  const editor = activeFsharpEditor();
  if (!editor) {
    return report("warning", `fslens: ${title}: put the cursor on a symbol in an F# file`);
  }
  const found = await vscode.window
    .withProgress({ location: vscode.ProgressLocation.Notification, title: `fslens: ${title}`, cancellable: true }, (_progress, token) =>
      execute<TestsForSymbolResult>("fslens.testsForSymbol", testsForSymbolArguments(position(editor)), token),
    )
    .then(
      (value) => value,
      (error) => {
        void report("error", `fslens: ${title} failed: ${describeError(error)}`);
        return undefined;
      },
    );
  if (!found) {
    return;
  }
  const summary = testsSummary(found);
  output.appendLine(summary.text);
  const picks = testPicks(found, workspaceRoot() ?? "");
  if (picks.length === 0) {
    return report(summary.level, `fslens: ${summary.text}`);
  }
  const picked = await pickTests(picks, summary.text);
  if (!picked) {
    return;
  }
  if (picked.length === 0) {
    return report("info", "fslens: no test checked: nothing was run");
  }
  await runTestsAndReport(runSelection(found, picked.map((pick: TestPick) => pick.test)));
}

/** fslens.runTests of a selection: the results in the fslens Tests output, failures as problems. */
async function runTestsAndReport(selection: RunSelection) {
  if (selection.notRunnable.length > 0) {
    void report("warning", `fslens: not run, VSTest cannot select them by name: ${selection.notRunnable.join(", ")}`);
  }
  const argument = selection.argument;
  if (!argument) {
    return;
  }
  const count = argument.tests.length;
  const result = await vscode.window
    .withProgress(
      { location: vscode.ProgressLocation.Notification, title: `fslens: running ${count} test(s)`, cancellable: true },
      (_progress, token) => execute<RunTestsResult>("fslens.runTests", argument, token),
    )
    .then(
      (value) => value,
      (error) => {
        void report("error", `fslens: running the tests failed: ${describeError(error)}`);
        return undefined;
      },
    );
  if (!result) {
    return;
  }
  await showRunReport(runReport(result, workspaceRoot() ?? ""));
}

/** A run's report: its lines in the fslens Tests output, failures as problems at their frames, the summary. */
async function showRunReport(run: RunReport) {
  testsOutput.clear();
  run.lines.forEach((line) => testsOutput.appendLine(line));
  testFailures.clear();
  const byFile = new Map<string, vscode.Diagnostic[]>();
  for (const failure of run.failures) {
    if (failure.path && failure.range) {
      const diagnostic = new vscode.Diagnostic(toRange(failure.range), `${failure.name}: ${failure.message}`, vscode.DiagnosticSeverity.Error);
      diagnostic.source = "fslens tests";
      byFile.set(failure.path, [...(byFile.get(failure.path) ?? []), diagnostic]);
    }
  }
  byFile.forEach((diagnostics, file) => testFailures.set(vscode.Uri.file(file), diagnostics));
  const first = run.failures.find((failure) => failure.path && failure.range);
  const action = await report(run.summary.level, `fslens: ${run.summary.text}`, ...(first ? ["Go to Failure"] : []), "Show Results");
  if (action === "Go to Failure" && first?.path && first.range) {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(first.path));
    const at = new vscode.Position(first.range.start.line, 0);
    await vscode.window.showTextDocument(document, { selection: new vscode.Range(at, at) });
  } else if (action === "Show Results") {
    testsOutput.show(true);
  }
}

/**
 * fslens: Tests affected by my changes — affectedTests of the unsaved buffers (else the
 * uncommitted changes) or of git since a revision; a quick pick of the selected tests with
 * their reasons (and, when the answer is not complete, the fallback tests, unchecked); the
 * checked ones run, failures as problems.
 */
async function affectedTestsCommand() {
  const title = "Tests affected by my changes";
  const source = await vscode.window.showQuickPick(
    [
      { label: "My changes", detail: "the unsaved buffers against the disk; when none differs, the uncommitted changes (since HEAD)", since: undefined as string | undefined },
      { label: "Since a git revision…", detail: "everything committed and uncommitted since a revision (HEAD, a branch, a commit)", since: "" },
    ],
    { title: `fslens: ${title}` },
  );
  if (!source) {
    return;
  }
  let since = source.since;
  if (since !== undefined) {
    since = await vscode.window.showInputBox({ title: `fslens: ${title}`, prompt: "A git revision", value: "HEAD" });
    if (since === undefined) {
      return;
    }
  }
  const request = { since };
  const found = await vscode.window
    .withProgress({ location: vscode.ProgressLocation.Notification, title: `fslens: ${title}`, cancellable: true }, (_progress, token) =>
      execute<AffectedTestsResult>("fslens.affectedTests", affectedTestsArguments(request), token),
    )
    .then(
      (value) => value,
      (error) => {
        void report("error", `fslens: ${title} failed: ${describeError(error)}`);
        return undefined;
      },
    );
  if (!found) {
    return;
  }
  const summary = affectedSummary(found);
  output.appendLine(summary.text);
  const picks = affectedPicks(found, workspaceRoot() ?? "");
  if (picks.length === 0) {
    return report(summary.level, `fslens: ${summary.text}`);
  }
  const picked = await pickTests<AffectedPick>(picks, summary.text);
  if (!picked) {
    return;
  }
  if (picked.length === 0) {
    return report("info", "fslens: no test checked: nothing was run");
  }
  const plan = runPlan(found, picked);
  if (plan.kind === "runTests") {
    if (plan.unnamed.length > 0) {
      void report("warning", `fslens: not run, no full name to select them by: ${plan.unnamed.join(", ")}`);
    }
    return plan.argument ? runTestsAndReport({ argument: plan.argument, notRunnable: [] }) : undefined;
  }
  const ran = await vscode.window
    .withProgress(
      { location: vscode.ProgressLocation.Notification, title: `fslens: running ${picked.length} affected test(s)`, cancellable: true },
      (_progress, token) => execute<AffectedTestsResult>("fslens.affectedTests", affectedTestsArguments({ ...request, run: true }), token),
    )
    .then(
      (value) => value,
      (error) => {
        void report("error", `fslens: running the affected tests failed: ${describeError(error)}`);
        return undefined;
      },
    );
  if (ran) {
    await showRunReport(affectedRunReport(ran, workspaceRoot() ?? ""));
  }
}

async function statusCommand() {
  try {
    const sent = statusTracker.requested();
    statusTracker.answered(sent, await execute<StatusLike>("fslens.status", { probe: true }));
    const status = statusTracker.current ?? {};
    showStatus(status);
    output.appendLine(JSON.stringify(status, null, 2));
    // The JSON scrolls its state out of view; its gist comes last.
    output.appendLine(`fslens: ${statusPresentation(status).label}${status.reason ? ` — ${status.reason}` : ""}`);
  } catch (error) {
    output.appendLine(`fslens.status failed: ${describeError(error)}`);
  }
  output.show(true);
}

export async function activate(context: vscode.ExtensionContext) {
  output = vscode.window.createOutputChannel("fslens");
  statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  statusItem.command = "fslens-vscode.showStatus";
  problems = vscode.languages.createDiagnosticCollection("fslens check");
  testsOutput = vscode.window.createOutputChannel("fslens Tests");
  testFailures = vscode.languages.createDiagnosticCollection("fslens tests");
  sitesView = new SitesView();
  context.subscriptions.push(output, statusItem, problems, testsOutput, testFailures, sitesView, renamePreviewChanged);
  context.subscriptions.push(
    vscode.languages.registerTypeHierarchyProvider({ language: "fsharp" }, new FslensTypeHierarchyProvider()),
    vscode.workspace.registerTextDocumentContentProvider("fslens-rename", {
      onDidChange: renamePreviewChanged.event,
      provideTextDocumentContent: () => renamePreviewText,
    }),
  );
  const register = (id: string, run: () => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, run));
  register("fslens-vscode.findAllSites", () => findCommand("find"));
  register("fslens-vscode.fieldImpact", () => findCommand("fieldImpact"));
  register("fslens-vscode.check", checkCommand);
  register("fslens-vscode.makeInternalVisible", makeVisibleCommand);
  register("fslens-vscode.typeHierarchy", typeHierarchyCommand);
  register("fslens-vscode.renamePreview", renamePreviewCommand);
  register("fslens-vscode.testsForSymbol", testsForSymbolCommand);
  register("fslens-vscode.affectedTests", affectedTestsCommand);
  register("fslens-vscode.showStatus", statusCommand);
  register("fslens-vscode.showLog", () => output.show());
  register("fslens-vscode.restart", async () => {
    try {
      const answer = await execute<{ generation?: number }>("fslens.restart", {});
      output.appendLine(`restarting FsAutoComplete (generation ${answer.generation ?? "?"})`);
    } catch (error) {
      await report("error", `fslens restart failed: ${describeError(error)}`);
    }
  });
  register("fslens-vscode.restartServer", async () => {
    if (ionideSession) {
      ionideSession.stop();
      ionideSession.start();
      return;
    }
    await client?.stop();
    await startClient(context);
  });
  register("fslens-vscode.shareIonideFsac", () => shareIonideFsac(context));
  register("fslens-vscode.stopSharingIonideFsac", () => stopSharingIonideFsac(context));
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("fslens") && !event.affectsConfiguration("fslens.trace")) {
        const answer = await vscode.window.showInformationMessage("fslens settings changed: restart the server?", "Restart");
        if (answer === "Restart") {
          await vscode.commands.executeCommand("fslens-vscode.restartServer");
        }
      }
    }),
  );
  if (sharingNow(context)) {
    joinIonideSession(context);
    void renewSharing(context, ionideHost(context));
  } else if (ionideInstalled() && !declined(context)) {
    // No second FSAC while the user decides; a dismissed prompt is "not now".
    statusTracker.reset({ state: "starting", reason: "Ionide is installed: share its FSAC with fslens? (see the notification)" });
    showStatus(statusTracker.current);
    void askToShare(context).then(async (answer) => {
      if (answer === "share") {
        await shareIonideFsac(context);
      } else {
        await startClientOrReport(context);
      }
    });
  } else {
    await startClientOrReport(context);
  }
}

async function startClientOrReport(context: vscode.ExtensionContext) {
  try {
    await startClient(context);
  } catch (error) {
    const reason = `fslens could not start: ${describeError(error)}`;
    statusTracker.reset({ state: "crashed", reason });
    showStatus(statusTracker.current);
    void report("error", `${reason}. Install the .vsix for your platform (it has fslens inside) or set fslens.path to the fslens executable.`, "Show Log").then((action) => {
      if (action) {
        output.show();
      }
    });
  }
}

function ionideHost(context: vscode.ExtensionContext): IonideHost {
  return {
    output,
    fslensBinary: () => resolveServerBinary(serverSettings(context), process.env.PATH),
    statusRequested: () => statusTracker.requested(),
    onStatusAnswer: (mark, status) => {
      statusTracker.answered(mark, status);
      showStatus(statusTracker.current);
    },
    onStatus: (status, full) => {
      const refresh = !full && needsFullStatus(status);
      if (full) {
        statusTracker.reset(status);
      } else {
        statusTracker.notified(status);
      }
      showStatus(statusTracker.current);
      if (refresh) {
        const sent = statusTracker.requested();
        void execute<StatusLike>("fslens.status", {}).then(
          (answer) => {
            statusTracker.answered(sent, answer);
            showStatus(statusTracker.current);
          },
          (error) => output.appendLine(`fslens.status failed: ${describeError(error)}`),
        );
      }
    },
  };
}

/** Ionide mode: no language client of our own; the commands run in Ionide's fslens session. */
function joinIonideSession(context: vscode.ExtensionContext) {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!folder) {
    return;
  }
  ionideSession = new IonideSession(ionideHost(context), folder);
  context.subscriptions.push(ionideSession);
  ionideSession.start();
}

async function shareIonideFsac(context: vscode.ExtensionContext) {
  if (sharingNow(context)) {
    if (!ionideSession) {
      joinIonideSession(context);
    }
    return report("info", "fslens: Ionide's FSAC is shared already");
  }
  if (!ionideInstalled()) {
    return report("warning", "fslens: Ionide (Ionide.Ionide-fsharp) is not installed");
  }
  // Our own client (and its FSAC) goes first: Ionide's fslens takes the session socket over.
  await client?.stop();
  client = undefined;
  if (await startSharing(context, ionideHost(context))) {
    joinIonideSession(context);
  } else {
    await startClientOrReport(context);
  }
}

async function stopSharingIonideFsac(context: vscode.ExtensionContext) {
  if (!sharingNow(context)) {
    return report("info", "fslens: Ionide's FSAC is not shared in this workspace");
  }
  ionideSession?.stop();
  ionideSession = undefined;
  await stopSharing(context, ionideHost(context));
  await sessionCommandsReleased();
  await startClientOrReport(context);
}

/**
 * While sharing, Ionide's language client talks to fslens and registers the commands fslens
 * advertises (`fslens.status`, …); ours can register them only once Ionide's client, restarting
 * on its direct FSAC, has let them go. Waits for that, at most a minute (then starts anyway and
 * any failure is reported as a start failure).
 */
async function sessionCommandsReleased(timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const registered = await vscode.commands.getCommands(true);
    if (!registered.includes("fslens.status")) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  output.appendLine("fslens.status is still registered by another client after a minute; starting fslens's own client anyway");
}

export async function deactivate() {
  await client?.stop();
}
