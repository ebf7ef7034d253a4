/**
 * The README's deploy steps are the operator's only guide: every variable,
 * secret and binding the Worker reads (src/env.ts) must be named there, and
 * every binding must exist in wrangler.toml.
 */
import { describe, expect, it } from "vitest";

const files = import.meta.glob(["../../README.md", "../../src/env.ts", "../../wrangler.toml"], { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const text = (name: string) => files[`../../${name}`] as string;

/** The names `ConnectorEnv` declares: the Worker's bindings, variables and secrets. */
function envNames(): string[] {
  const source = text("src/env.ts");
  const body = /interface ConnectorEnv \{([\s\S]*?)\n\}/.exec(source)?.[1] ?? "";
  return [...body.matchAll(/^\s+([A-Z][A-Z0-9_]*)\??:/gm)].map((m) => m[1] as string);
}

/** The README's "Deploy" section, up to the next section of the same level. */
function deploySection(): string {
  const readme = text("README.md");
  const start = readme.search(/^## Deploy/m);
  if (start < 0) return "";
  const rest = readme.slice(start + 1);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

describe("the deploy steps", () => {
  it("name every variable, secret and binding the Worker reads", () => {
    const names = envNames();
    expect(names.length).toBeGreaterThan(5);
    const section = deploySection();
    expect(section, "README.md has a ## Deploy section").not.toBe("");
    expect(names.filter((name) => !new RegExp(`\\b${name}\\b`).test(section))).toEqual([]);
  });

  it("are numbered steps an operator can follow", () => {
    expect(deploySection().match(/^\d+\. /gm)?.length ?? 0).toBeGreaterThanOrEqual(4);
  });
});
