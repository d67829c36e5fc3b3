// FSAC 0.83.0's initialize result (shared/fsac-protocol.md §3.2, §5.9): the
// double advertises exactly what FSAC advertises and answers every request method
// it promises (lib/editorFeatures.mjs; test/capabilities.test.mjs sends each one);
// the few it answers in FSAC's shape without computing are in README "Differences".
export const SEMANTIC_TOKEN_TYPES = ['namespace', 'type', 'class', 'enum', 'interface', 'struct', 'typeParameter',
  'parameter', 'variable', 'property', 'enumMember', 'event', 'function', 'method', 'macro', 'keyword', 'modifier',
  'comment', 'string', 'number', 'regexp', 'operator', 'member', 'cexpr', 'text', 'module'];
export const SEMANTIC_TOKEN_MODIFIERS = ['declaration', 'definition', 'readonly', 'static', 'deprecated', 'abstract',
  'async', 'modification', 'documentation', 'defaultLibrary', 'mutable', 'disposable', 'extension'];

export const FSAC_VERSION = '0.83.0';

export function initializeResult() {
  return {
    capabilities: {
      textDocumentSync: { openClose: true, change: 2, save: { includeText: true } },
      hoverProvider: true,
      completionProvider: { resolveProvider: true, triggerCharacters: ['.', "'"], workDoneProgress: false },
      signatureHelpProvider: { triggerCharacters: ['(', ',', ' '], retriggerCharacters: [',', ')', ' '], workDoneProgress: false },
      definitionProvider: true,
      typeDefinitionProvider: true,
      implementationProvider: true,
      referencesProvider: true,
      documentHighlightProvider: true,
      documentSymbolProvider: { label: 'F#', workDoneProgress: false },
      workspaceSymbolProvider: { resolveProvider: true, workDoneProgress: false },
      codeActionProvider: { workDoneProgress: false },
      codeLensProvider: { resolveProvider: true, workDoneProgress: false },
      documentFormattingProvider: true,
      documentRangeFormattingProvider: true,
      renameProvider: { prepareProvider: true, workDoneProgress: false },
      foldingRangeProvider: true,
      selectionRangeProvider: true,
      callHierarchyProvider: true,
      semanticTokensProvider: {
        legend: { tokenTypes: SEMANTIC_TOKEN_TYPES, tokenModifiers: SEMANTIC_TOKEN_MODIFIERS },
        range: true, full: true, workDoneProgress: false,
      },
      inlayHintProvider: { resolveProvider: false, workDoneProgress: false },
      inlineValueProvider: {},
    },
    serverInfo: { name: 'FsAutoComplete', version: FSAC_VERSION },
  };
}
