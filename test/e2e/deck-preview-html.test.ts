/**
 * The deck preview's page is committed as a generated module (npm run build:app): it must be what its
 * sources build now, and speak the MCP Apps revision and metadata ext-apps' own host code reads.
 */
import { getToolUiResourceUri } from "@modelcontextprotocol/ext-apps/app-bridge";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/ext-apps";
import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";
import { deckPreviewModule, GENERATED } from "../../scripts/build-app.js";
import { APPS_PROTOCOL_VERSION } from "../../src/mcp/app/host.js";
import { DECK_PREVIEW_URI, toolUiMeta } from "../../src/mcp/deck-preview.js";

it("src/mcp/generated/deck-preview-html.ts is built from src/mcp/app as it is (run npm run build:app after editing it)", async () => {
  const same = (await readFile(GENERATED, "utf8")) === (await deckPreviewModule());
  expect(same, "src/mcp/generated/deck-preview-html.ts is out of date: run npm run build:app").toBe(true);
});

it("the View asks for the MCP Apps revision of the pinned ext-apps, and its hosts find the preview in the tools' _meta", () => {
  expect(APPS_PROTOCOL_VERSION).toBe(LATEST_PROTOCOL_VERSION);
  expect(getToolUiResourceUri({ _meta: { ...toolUiMeta } })).toBe(DECK_PREVIEW_URI);
  // A host that reads only the flat key finds it too.
  expect(getToolUiResourceUri({ _meta: { "ui/resourceUri": toolUiMeta["ui/resourceUri"] } })).toBe(DECK_PREVIEW_URI);
});
