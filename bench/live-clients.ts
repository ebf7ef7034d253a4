/**
 * The open pages of the live-socket benchmark (live-sockets.ts), in a
 * process of their own so that reading their messages never stalls the load
 * generator's event loop: `count` live sockets on each Note, each counting
 * what it receives.
 *
 * Usage: node --import tsx bench/live-clients.ts <origin> <app token> <note>:<count> …
 * Prints `{"ready":true}` once every socket has its snapshot; on a line
 * `report {"<note>": <version>, …}` on stdin prints what each socket received
 * once each has its Note's version (or after 5 s: messages still on their
 * way); closes all at stdin's end.
 */
import { createInterface } from "node:readline";
import WebSocket from "ws";

export interface SocketTally {
  noteId: string;
  /** The snapshot's version. */
  first: number;
  /** The last change's version (first if none came). */
  last: number;
  /** Change messages received. */
  changes: number;
  /** Changes that were not the one after the last (a gap or a repeat): 0 when delivery is right. */
  outOfOrder: number;
  /** The close code, if the socket closed. */
  closed: number | null;
}

const [origin, token, ...specs] = process.argv.slice(2);
if (origin === undefined || token === undefined || specs.length === 0) {
  console.error("usage: live-clients.ts <origin> <app token> <note>:<count> …");
  process.exit(2);
}

const tallies: SocketTally[] = [];
const sockets: WebSocket[] = [];
const opened: Promise<void>[] = [];
for (const spec of specs) {
  const [noteId, count] = spec.split(":") as [string, string];
  for (let i = 0; i < Number(count); i++) {
    const tally: SocketTally = { noteId, first: 0, last: 0, changes: 0, outOfOrder: 0, closed: null };
    tallies.push(tally);
    const ws = new WebSocket(`${origin.replace(/^http/, "ws")}/api/v1/notes/${noteId}/live`, { headers: { Authorization: `Bearer ${token}` } });
    sockets.push(ws);
    opened.push(
      new Promise((resolve, reject) => {
        ws.on("message", (data) => {
          const message = JSON.parse(String(data)) as { type: string; version?: number; change?: { version: number } };
          if (message.type === "snapshot") {
            tally.first = tally.last = message.version as number;
            resolve();
          } else if (message.type === "change") {
            const version = message.change?.version as number;
            if (version !== tally.last + 1) tally.outOfOrder++;
            tally.last = version;
            tally.changes++;
          }
        });
        ws.on("error", reject);
        ws.on("close", (code) => {
          tally.closed = code;
          reject(new Error(`a socket on ${noteId} closed with ${code}`));
        });
      }),
    );
  }
}

try {
  await Promise.all(opened);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
console.log(JSON.stringify({ ready: true }));

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (!line.startsWith("report ")) return;
  const versions = JSON.parse(line.slice("report ".length)) as Record<string, number>;
  const started = Date.now();
  const check = (): void => {
    const behind = tallies.some((t) => t.closed === null && t.last < (versions[t.noteId] ?? 0));
    if (behind && Date.now() - started < 5_000) setTimeout(check, 50);
    else console.log(JSON.stringify({ tallies }));
  };
  check();
});
lines.on("close", () => {
  for (const ws of sockets) ws.close(1000, "done");
  process.exit(0);
});
