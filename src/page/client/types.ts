/**
 * @module
 * What the page reads: the whole Note as `GET /api/v1/notes/:id` answers it,
 * the change log's entries, and the live socket's messages (docs/api.md,
 * docs/live.md). The server's own types, imported as types only: the page's
 * script carries none of the server's code, and the two cannot drift.
 */
import type { WholeNote } from "../../note/index.js";

export type { Actor, ChangeEntry } from "../../note/changes.js";
export type { WholeNote as Note } from "../../note/commands.js";
export type { LiveMessage } from "../../storage/live.js";

export type Tab = WholeNote["tabs"][number];
