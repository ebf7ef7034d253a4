/** The Worker entry: the Hono app, and the Durable Object classes wrangler binds. */
import { app } from "./http/app.js";

export { DirectoryObject } from "./storage/directory-object.js";
export { NoteObject } from "./storage/note-object.js";

export default app;
