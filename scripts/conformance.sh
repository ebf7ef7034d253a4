#!/usr/bin/env bash
# `npm run conformance [-- scenario …]`: the MCP conformance suite's server scenarios that
# apply to this connector, against a connector this script starts (`npm start` on a free
# loopback port) or the one at $MCP_URL. Each scenario runs twice: without a token (what
# anyone may do: discovery) and with one (through scripts/conformance-proxy.ts, since the
# suite cannot send one itself). Exits 1 if any check of any run fails.
#
# The suite needs Node 22; this project runs on Node 20. So the registry's `node` package
# (a Node 22 binary) and the pinned suite are installed into a scratch folder outside the
# project, $CONFORMANCE_DIR (default: notes-connector-conformance under the system temp
# dir), created if missing and reused while it holds the pinned versions. The system's Node
# is not touched.
# It needs the package registry, so it is not part of `npm test` or CI. See docs/conformance.md.
#
#   MCP_URL=http://127.0.0.1:8787/mcp npm run conformance     # a connector already running
#   MCP_TOKEN=… MCP_URL=https://notes.example.com/mcp npm run conformance
#                                                              # a deployment: bring the token
#   PORT=8790 PROXY_PORT=8791 npm run conformance             # fixed ports (default: free ones)
set -euo pipefail
cd "$(dirname "$0")/.."

readonly SUITE_VERSION=0.1.16
readonly NODE_VERSION=22.23.3

# The server scenarios of suite 0.1.16 (`conformance list --server`) that apply here.
APPLICABLE=(
  server-initialize          # initialize, then notifications/initialized
  ping
  tools-list                 # every tool has a name, a description and an inputSchema
  resources-list             # the deck preview's ui:// resource (issue 14)
  dns-rebinding-protection   # a foreign Host/Origin is refused 4xx, our own answered 2xx
)
# The rest, and why not (docs/conformance.md has the table). Most call fixtures of the
# suite's own "everything" test server by name, which a Notes connector does not have:
#   logging-set-level             the connector declares no `logging` capability (optional); -32601 is the right answer
#   completion-complete           needs prompt test_prompt_with_arguments and the `completions` capability
#   tools-call-simple-text, tools-call-image, tools-call-audio, tools-call-embedded-resource,
#   tools-call-mixed-content, tools-call-with-logging, tools-call-error, tools-call-with-progress,
#   tools-call-sampling, tools-call-elicitation
#                                 call the everything server's test_* tools; the connector's tools are Notes tools
#   json-schema-2020-12           needs tool json_schema_2020_12_tool (and is "pending" in the suite)
#   elicitation-sep1034-defaults, elicitation-sep1330-enums
#                                 call test_elicitation_* tools; the connector never elicits
#   server-sse-polling            needs tool test_reconnection and a session with SSE streams (and is "pending")
#   server-sse-multiple-streams   needs an Mcp-Session-Id: this server is stateless with JSON answers, so the
#                                 scenario stops at a WARNING and checks nothing
#   resources-read-text, resources-read-binary, resources-templates-read
#                                 read the everything server's test:// resources
#   resources-subscribe, resources-unsubscribe
#                                 need the `resources.subscribe` capability; a stateless server cannot notify
#   prompts-list, prompts-get-simple, prompts-get-with-args, prompts-get-embedded-resource, prompts-get-with-image
#                                 the connector has no prompts (no `prompts` capability); the get-* ones name test_* prompts
if [ "$#" -gt 0 ]; then APPLICABLE=("$@"); fi

dir="${CONFORMANCE_DIR:-${TMPDIR:-/tmp}/notes-connector-conformance}"
node22="$dir/node_modules/node/bin/node"
suite="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"

installed() {
  [ -x "$node22" ] && [ "$("$node22" --version 2>/dev/null)" = "v$NODE_VERSION" ] &&
    [ "$("$node22" -p 'require(process.argv[1]).version' "$dir/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null)" = "$SUITE_VERSION" ]
}

if ! installed; then
  echo "conformance: installing Node $NODE_VERSION and @modelcontextprotocol/conformance $SUITE_VERSION into $dir"
  mkdir -p "$dir"
  # The `node` package fetches its platform's binary in a preinstall script; npm 11 runs a
  # dependency's install scripts only when the project allows them.
  [ -f "$dir/package.json" ] || echo '{"private": true, "allowScripts": {"node": true}}' >"$dir/package.json"
  (cd "$dir" && npm install --save-exact --no-audit --no-fund --loglevel=error \
    "node@$NODE_VERSION" "@modelcontextprotocol/conformance@$SUITE_VERSION")
  installed || { echo "conformance: the install in $dir did not give Node $NODE_VERSION and suite $SUITE_VERSION" >&2; exit 1; }
fi

run_dir="$dir/results/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$run_dir"
server_pid=""
proxy_pid=""

# Stops only what this script started: each runs in a process group of its own (set -m).
stop_group() {
  local pid="$1" i
  kill -TERM -- "-$pid" 2>/dev/null || return 0
  for i in $(seq 1 40); do
    kill -0 -- "-$pid" 2>/dev/null || return 0
    sleep 0.25
  done
  kill -KILL -- "-$pid" 2>/dev/null || true
}
cleanup() {
  if [ -n "$proxy_pid" ]; then stop_group "$proxy_pid"; fi
  if [ -n "$server_pid" ]; then stop_group "$server_pid"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Waits for the first line of a background job's output; fails if the job ends first.
first_line() {
  local file="$1" pid="$2" pattern="$3" seconds="$4" i
  for i in $(seq 1 $((seconds * 4))); do
    if grep -q -- "$pattern" "$file" 2>/dev/null; then return 0; fi
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.25
  done
  return 1
}

if [ -n "${MCP_URL:-}" ]; then
  mcp_url="$MCP_URL"
else
  port=${PORT:-}
  [ -n "$port" ] || port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
  echo "conformance: starting the connector on 127.0.0.1:$port (log: $run_dir/server.log)"
  set -m
  PORT="$port" npm start >"$run_dir/server.log" 2>&1 &
  server_pid=$!
  set +m
  if ! first_line "$run_dir/server.log" "$server_pid" "MCP endpoint" 120; then
    tail -n 40 "$run_dir/server.log" >&2
    echo "conformance: the connector did not start" >&2
    exit 1
  fi
  mcp_url="http://127.0.0.1:$port/mcp"
fi
origin=$(node -p 'new URL(process.argv[1]).origin' "$mcp_url")
mcp_path=$(node -p 'new URL(process.argv[1]).pathname' "$mcp_url")
loopback=$(node -p '["localhost", "127.0.0.1", "[::1]"].includes(new URL(process.argv[1]).hostname)' "$mcp_url")

token="${MCP_TOKEN:-}"
if [ -z "$token" ]; then token=$(npm run -s token -- --url "$origin"); fi

set -m
TOKEN="$token" npx tsx scripts/conformance-proxy.ts "$origin" >"$run_dir/proxy.log" 2>&1 &
proxy_pid=$!
set +m
if ! first_line "$run_dir/proxy.log" "$proxy_pid" "^http://" 30; then
  cat "$run_dir/proxy.log" >&2
  echo "conformance: the token proxy did not start" >&2
  exit 1
fi
proxied_url="$(head -n 1 "$run_dir/proxy.log")$mcp_path"

echo "conformance: suite $SUITE_VERSION on Node $("$node22" --version), against $mcp_url; results in $run_dir"
failures=()
summary=()
for mode in "without token" "with token"; do
  if [ "$mode" = "with token" ]; then url="$proxied_url"; else url="$mcp_url"; fi
  out_dir="$run_dir/${mode// /-}"
  mkdir -p "$out_dir"
  for scenario in "${APPLICABLE[@]}"; do
    if [ "$scenario" = dns-rebinding-protection ] && [ "$loopback" != true ]; then
      # The scenario is for servers on this machine (a browser page rebinding a name to 127.0.0.1).
      summary+=("skip  $scenario ($mode): $mcp_url is not a loopback URL")
      continue
    fi
    status=0
    "$node22" "$suite" server --url "$url" --scenario "$scenario" -o "$out_dir" >"$out_dir/$scenario.txt" 2>&1 || status=$?
    counts=$(grep -E '^Passed: ' "$out_dir/$scenario.txt" || echo "no result (exit $status)")
    if [ "$status" -eq 0 ]; then
      summary+=("pass  $scenario ($mode): $counts")
    else
      summary+=("FAIL  $scenario ($mode): $counts")
      failures+=("$scenario ($mode)")
      echo "---- $scenario ($mode), failed:"
      grep -E '^  - [A-Za-z0-9_$]+: |^    Error: |^Error' "$out_dir/$scenario.txt" || tail -n 5 "$out_dir/$scenario.txt"
    fi
  done
done

echo
printf '%s\n' "${summary[@]}"
if [ "${#failures[@]}" -gt 0 ]; then
  # The suite's client reports an HTTP error by its body alone; the status is in the server's log.
  echo "conformance: ${#failures[@]} failed: ${failures[*]} (details: $run_dir)" >&2
  exit 1
fi
echo "conformance: every applicable scenario passed"
