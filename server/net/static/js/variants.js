// The variants a racer can pick, by id and title: the server lists none, so
// the page names them as the terminal client's catalogue does
// (client/models/catalogue.py). A variant's rules and layout stay the
// server's: the layout comes with the start of each race.

export const VARIANTS = [
  { id: "quadrille", title: "Quadrille" },
  { id: "royal-cotillion", title: "Royal Cotillion" },
  { id: "gavotte", title: "Gavotte" },
  { id: "odd-and-even", title: "Odd and Even" },
  { id: "contradance", title: "Contradance" },
  { id: "royal-rendezvous", title: "Royal Rendezvous" },
  { id: "royal-rendezvous-solsuite", title: "Royal Rendezvous (SolSuite)" },
  { id: "grand-duchess", title: "Grand Duchess" },
  { id: "parisienne", title: "Parisienne" },
  { id: "royal-parade", title: "Royal Parade" },
  { id: "royal-parade-bergholt", title: "Bergholt's Royal Parade" },
  { id: "virginia-reel", title: "Virginia Reel" },
];

// A variant's title by its id; an id the page does not know (a newer server's) as it is.
export function variantTitle(id) {
  return VARIANTS.find((v) => v.id === id)?.title ?? id;
}
