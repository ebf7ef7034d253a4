/**
 * The Markdown tab as a person reads it (src/page/client/markdown-subset.ts):
 * the subset's tree, written out here as the elements markdown-view.ts builds
 * from it (a heading of level n is h(n+2); text escaped), so each case reads
 * as what the page shows. The DOM itself: test/browser/content.test.ts and xss.test.ts.
 */
import { describe, expect, it } from "vitest";
import { parseInline, parseMarkdown, safeHref, type Block, type Inline } from "../../src/page/client/markdown-subset.js";

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
/** Every element name the tree gave: the subset's own, whatever the text holds. */
const made: string[] = [];
const element = (tag: string, inner: string, attributes = "") => {
  made.push(tag);
  return `<${tag}${attributes}>${inner}</${tag}>`;
};

function inline(node: Inline): string {
  switch (node.type) {
    case "text":
      return escape(node.text);
    case "code":
      return element("code", escape(node.text));
    case "em":
    case "strong":
      return element(node.type, node.children.map(inline).join(""));
    case "link":
      return element("a", node.children.map(inline).join(""), ` href="${escape(node.href)}"`);
    case "break":
      return element("br", "");
  }
}

function block(node: Block): string {
  switch (node.type) {
    case "heading":
      return element(`h${Math.min(node.level + 2, 6)}`, node.children.map(inline).join(""));
    case "paragraph":
      return element("p", node.children.map(inline).join(""));
    case "code":
      return element("pre", element("code", escape(node.text)));
    case "quote":
      return element("blockquote", node.children.map(block).join(""));
    case "list": {
      const items = node.items.map((item) => element("li", item.length === 1 && item[0]?.type === "paragraph" ? item[0].children.map(inline).join("") : item.map(block).join(""))).join("");
      return node.ordered ? element("ol", items, node.start === 1 ? "" : ` start="${node.start}"`) : element("ul", items);
    }
  }
}

const render = (text: string) => parseMarkdown(text).map(block).join("");


describe("the Markdown subset", () => {
  it("renders headings, paragraphs, emphasis, strong, inline code and code blocks", () => {
    expect(render("# Plan\n\nSome *light* and **bold** with `x < y`.\nNext line.\n\n## Code\n\n```ts\nconst a = 1 < 2;\n```")).toBe(
      "<h3>Plan</h3><p>Some <em>light</em> and <strong>bold</strong> with <code>x &lt; y</code>.\nNext line.</p><h4>Code</h4><pre><code>const a = 1 &lt; 2;</code></pre>",
    );
    expect(render("###### six ##\n####### seven")).toBe("<h6>six</h6><p>####### seven</p>");
    expect(render("# a #b\n## #\n# c#   \n#\n# d \\#")).toBe("<h3>a #b</h3><h4></h4><h3>c#</h3><h3></h3><h3>d #</h3>");
    expect(render("_under_ and __double__, snake_case_name")).toBe("<p><em>under</em> and <strong>double</strong>, snake_case_name</p>");
    expect(render("a  \nb\\\nc")).toBe("<p>a<br></br>b<br></br>c</p>");
  });

  it("renders bulleted and numbered lists, nested, and block quotes", () => {
    expect(render("- one\n- two\n  - two a\n  - two b\n- three")).toBe("<ul><li>one</li><li><p>two</p><ul><li>two a</li><li>two b</li></ul></li><li>three</li></ul>");
    expect(render("3. c\n4. d")).toBe('<ol start="3"><li>c</li><li>d</li></ol>');
    expect(render("1) a\n2) b\n\ntext")).toBe("<ol><li>a</li><li>b</li></ol><p>text</p>");
    expect(render("> quoted *text*\n> - item\n\nafter")).toBe("<blockquote><p>quoted <em>text</em></p><ul><li>item</li></ul></blockquote><p>after</p>");
    expect(parseMarkdown("- a\n\n  still a\n- b")).toEqual([
      { type: "list", ordered: false, start: 1, items: [[{ type: "paragraph", children: [{ type: "text", text: "a" }] }, { type: "paragraph", children: [{ type: "text", text: "still a" }] }], [{ type: "paragraph", children: [{ type: "text", text: "b" }] }]] },
    ]);
  });

  it("links only to http, https and mailto; any other link, raw HTML and the rest show as their text", () => {
    expect(render("[site](https://example.org/a_(b)) and [mail](mailto:a@example.org)")).toBe(
      '<p><a href="https://example.org/a_(b)">site</a> and <a href="mailto:a@example.org">mail</a></p>',
    );
    expect(render("[x](javascript:alert(1)) [y](JAVASCRIPT:alert(1)) [z](data:text/html,hi) [w](/relative) [v](  javascript:alert(1))")).toBe(
      "<p>[x](javascript:alert(1)) [y](JAVASCRIPT:alert(1)) [z](data:text/html,hi) [w](/relative) [v](  javascript:alert(1))</p>",
    );
    expect(render('<img src=x onerror=alert(1)> <script>alert(1)</script>\n\n<a href="javascript:alert(1)">a</a>')).toBe(
      "<p>&lt;img src=x onerror=alert(1)&gt; &lt;script&gt;alert(1)&lt;/script&gt;</p><p>&lt;a href=&quot;javascript:alert(1)&quot;&gt;a&lt;/a&gt;</p>",
    );
    expect(render("![alt](https://example.org/x.png)")).toBe('<p>!<a href="https://example.org/x.png">alt</a></p>');
    expect(render("\u202Eevil\u202C *text*")).toBe("<p>\u202Eevil\u202C <em>text</em></p>");
    expect(render("| a | b |\n|---|---|")).toBe("<p>| a | b |\n|---|---|</p>");
    expect(safeHref("https://exa mple.org")).toBeNull();
    expect(safeHref("http:/x")).toBeNull();
    expect(safeHref("https://example.org/\\_x")).toBe("https://example.org/_x");
  });

  it("builds only the subset's elements, whatever the text holds", () => {
    made.length = 0;
    render("<img src=x onerror=alert(1)><script>x</script><iframe></iframe><style></style>[a](https://e.org) *b* **c** `d`\n# e\n- f\n1. g\n> h\n```\ni\n```\nj  \nk");
    expect(new Set(made)).toEqual(new Set(["p", "a", "em", "strong", "code", "h3", "ul", "li", "ol", "blockquote", "pre", "br"]));
  });

  it("keeps unmatched delimiters as text, and reads a long run of them in linear time", () => {
    expect(render("2 * 3 * 4 and a ` tick and [bracket")).toBe("<p>2 * 3 * 4 and a ` tick and [bracket</p>");
    expect(render("\\*not em\\* and \\`not code\\`")).toBe("<p>*not em* and `not code`</p>");
    expect(parseInline("**unclosed *em*")).toEqual([{ type: "text", text: "**unclosed " }, { type: "em", children: [{ type: "text", text: "em" }] }]);
    // No clock here: at half a million characters a linear parser takes a fraction of a second, while one that costs
    // the square of a run (a trailing-space regex took 146 s on 400,000 spaces) runs past the test's timeout.
    const n = 500_000;
    for (const c of ["*", "_", "`", "[", "*a ", "[a](", "[](", "> ", "- ", "**a *b ", "*a* "]) expect(parseMarkdown(c.repeat(Math.floor(n / c.length))).length).toBeGreaterThan(0);
    // Long runs of spaces inside a line, and blank lines inside a list item.
    const spaces = " ".repeat(n);
    for (const text of [`[a](x${spaces}y)`, `# a${spaces}b`, `a${spaces}b\nc`, `# a${spaces}#x`, `- a\n${"\n".repeat(n)}  b`]) expect(parseMarkdown(text).length).toBeGreaterThan(0);
  });
});
