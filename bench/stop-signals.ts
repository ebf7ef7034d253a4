/**
 * Ctrl-C (or SIGTERM) for the bench's command-line tools: the first stops the
 * load and the server through an AbortSignal, so their cleanup runs (the
 * server stopped, its temporary folders removed); a later one, two seconds on,
 * leaves at once. (wrangler's and Miniflare's handlers, which would exit
 * straight away, are kept out by bench/server.ts.)
 */
export function stopOnSignals(tool: string): AbortSignal {
  const stopping = new AbortController();
  let stoppedAt = 0;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      // npm and tsx relay the terminal's Ctrl-C, so one press can arrive twice: only a later one means "leave now".
      if (stopping.signal.aborted) {
        if (Date.now() - stoppedAt > 2_000) process.exit(130);
        return;
      }
      stoppedAt = Date.now();
      console.error(`\n[${tool}] ${signal}: stopping the load and the server …`);
      stopping.abort(new Error(`stopped by ${signal}`));
    });
  }
  return stopping.signal;
}
