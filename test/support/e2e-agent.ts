/**
 * An agent and the person on the project's shared `wrangler dev`
 * (test/support/e2e-server.ts): alice signed in twice, once as an agent
 * through the official MCP client (its tools listed once, so the client checks
 * every structured result against the tool's output schema), once for the
 * person's API. For the e2e files that act as both.
 */
import type { CallToolResult, Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect } from "vitest";
import { connectClient } from "../../scripts/demo-session.js";
import { PersonApi } from "../../scripts/lib/person-api.js";
import { signIn } from "../../scripts/lib/sign-in.js";
import { useSharedServer } from "./e2e-server.js";

export interface AgentAndPerson {
  /** A tool call that must succeed: its structured result. */
  call(name: string, args: Record<string, unknown>): Promise<any>;
  /** A tool call that must be refused: the error object a model reads. */
  refusal(name: string, args: Record<string, unknown>): Promise<any>;
  /** A tool call's whole result, as the client checked it (its text contents too). */
  raw(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** alice's person's API (once the file's beforeAll ran). */
  people(): PersonApi;
}

export function useAgentAndPerson(): AgentAndPerson {
  let agentToken = "";
  let people: PersonApi | undefined;
  let client: Client | undefined;
  const { running } = useSharedServer(async (server) => {
    agentToken = (await signIn({ origin: server.url, user: "alice", scopes: ["osfoundry:read", "osfoundry:write"], resource: "mcp" })).access_token;
    const appToken = (await signIn({ origin: server.url, user: "alice", scopes: ["osfoundry:app"], resource: "api" })).access_token;
    people = new PersonApi({ origin: server.url, token: appToken });
  });
  beforeAll(async () => {
    client = await connectClient(running().mcpUrl, agentToken);
    await client.listTools();
  });
  afterAll(async () => {
    await client?.close();
  });
  const callTool = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> => {
    if (client === undefined) throw new Error("the MCP client is not connected yet");
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  };
  return {
    async call(name, args) {
      const result = await callTool(name, args);
      if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      return result.structuredContent;
    },
    async refusal(name, args) {
      const result = await callTool(name, args);
      expect(result.isError, `${name} succeeded: ${JSON.stringify(result.structuredContent)}`).toBe(true);
      const [content] = result.content as { type: string; text: string }[];
      return JSON.parse(content?.text ?? "{}").error;
    },
    raw: callTool,
    people() {
      if (people === undefined) throw new Error("the person's API is not signed in yet");
      return people;
    },
  };
}
