// Digits grouped by thousands as en-US writes them ("1234567" → "1,234,567"), by hand: a page's first Intl formatter or toLocaleString starts the browser's number formatting (ICU), tens of ms that a start would wait for (issue 41).

/** "1,234,567" from "1234567": a comma before every third digit from the right of a run of digits. */
export function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
