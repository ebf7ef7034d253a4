/** The deck every simulated agent writes (sim, experiment 5) and `npm run demo` too: twelve slides with a title and a short body. */
export const DECK: readonly { title: string; body: string }[] = [
  { title: "Launch plan", body: "What ships, when, and who carries it." },
  { title: "Goals", body: "- 500 teams in the first month\n- Under 2% churn" },
  { title: "Audience", body: "Teams that already write their plans in Notes." },
  { title: "What ships", body: "Connector GA, templates, the Sources tab." },
  { title: "Timeline", body: "Beta in week 1, GA in week 4." },
  { title: "Pricing", body: "Included in every paid plan." },
  { title: "Channels", body: "Blog, changelog, in-app tour, partner newsletters." },
  { title: "Launch-day checklist", body: "Status page, on-call, support macros." },
  { title: "Risks", body: "Load on day one; unclear upgrade path." },
  { title: "Metrics", body: "Activation, weekly active Notes, decks created by agents." },
  { title: "Owners", body: "PM: Ana, Eng: Bo, Marketing: Cy" },
  { title: "Next steps", body: "Sign-off by Friday." },
];
