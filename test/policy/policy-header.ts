// The policy range's header row as the functions guide writes it, Roll within, Roll and Working days included: the dated-rule tests build their policy ranges under it.
export const POLICY_HEADER = [
  "Market",
  "Hedge ratio (%)",
  "Tenor (days)",
  "Round to (USD)",
  "Min trade (USD)",
  "Max trade (USD)",
  "Net sides",
  "Roll within (hours)",
  "Roll",
  "Working days",
];
