/**
 * A newcomer's trial of the person's page (issue 24): inputs and gestures
 * nobody planned for. Each case here failed on the page before its fix.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newNote, openPage, read, useBrowserHarness, WAIT, type Harness, type OpenPage } from "./harness.js";

const harness = useBrowserHarness();
let h: Harness;
let noteId = "";
let person: OpenPage;

const status = () => person.locator("#status").textContent();
const version = async () => (await read<{ version: number }>(h, `/notes/${noteId}`)).version;

beforeAll(async () => {
  h = harness();
  ({ noteId } = await newNote(h, "Trial"));
  person = await openPage(h, noteId);
});

afterAll(async () => {
  await person?.context().close();
});

describe("the person's page under a newcomer's hands", () => {
  it("a double-clicked Save sends its write once: no conflict the person did not make", async () => {
    const writes: string[] = [];
    person.on("request", (request) => {
      if (request.method() !== "GET" && request.url().includes("/api/v1/")) writes.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    const start = await version();
    await person.locator("#rename-note").click();
    await person.locator("#note-title-input").fill("Twice clicked");
    await person.locator('#note-title-form button[type="submit"]').dblclick();
    await expect.poll(status, WAIT).toMatch(/^Rename the Note: done/);
    await person.locator('#add-member input[name="user"]').fill("carol");
    await person.locator('#add-member button[type="submit"]').dblclick();
    await expect.poll(status, WAIT).toMatch(/^Add carol: done/);
    await expect.poll(() => person.locator("#note-version").textContent(), WAIT).toBe(String(start + 2));
    expect(await status()).not.toMatch(/changed while/);
    expect(writes).toEqual([`PATCH /api/v1/notes/${noteId}`, `POST /api/v1/notes/${noteId}/members`]);
    expect(await version()).toBe(start + 2);
    expect(person.problems).toEqual([]);
  });
});
