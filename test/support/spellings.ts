/** The seven spellings of one page that docs/spec.md §9.4 cites: as is, trailing slash, www., utm_, fragment, http, no scheme. */
export const SEVEN_SPELLINGS = [
  "https://example.org/report",
  "https://example.org/report/",
  "https://www.example.org/report",
  "https://example.org/report?utm_source=newsletter",
  "https://example.org/report#fragment",
  "http://example.org/report",
  "example.org/report",
] as const;
