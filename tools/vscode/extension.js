// Starts `railrules lsp` (or the command set in railrules.command) for .rules files.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("railrules").get("command");
  client = new LanguageClient("railrules", "railrules", { command, args }, {
    documentSelector: [{ scheme: "file", language: "rules" }, { scheme: "file", pattern: "**/rulesets/**/*.yaml" }],
  });
  client.start();
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
