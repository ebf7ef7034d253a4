/**
 * How an experiment's result is printed: a one-line heading, its table(s),
 * and one line on what it shows and which model details were chosen.
 */
export interface Section {
  /** The experiment's key in `--json`. */
  key: string;
  heading: string;
  tables: string[];
  note: string;
}

/** The sections as one Markdown document, blank lines between blocks. */
export function renderMarkdown(sections: readonly Section[]): string {
  return sections.map((s) => [s.heading, ...s.tables, s.note].join("\n\n")).join("\n\n") + "\n";
}
