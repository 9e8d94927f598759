import type { ProviderInfo } from "@board/proto";
import { html, type Html } from "../http/html.js";

/** How late the board's prices are, in words a reader of the page understands. */
export const DELAY_WORDS: Readonly<Record<NonNullable<ProviderInfo["delay"]>, string>> = {
  real_time: "real-time",
  delayed_15m: "15-minute delayed",
  end_of_day: "end-of-day prices: the board is computed from each session's closing bars, not during the session",
  simulated: "simulated",
  recorded: "recorded vendor responses replayed: not live prices",
};

const VENDOR_NAMES: Readonly<Record<string, string>> = { polygon: "Polygon.io", alpaca: "Alpaca" };

/** Feeds as their vendors name them, in words; an unknown one is shown as named. */
const FEED_WORDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  alpaca: { iex: "IEX feed: one exchange's trades", sip: "SIP feed: all US exchanges", delayed_sip: "SIP feed: all US exchanges" },
  polygon: { basic: "Basic plan", starter: "Starter plan", developer: "Developer plan", advanced: "Advanced plan" },
};

/** The vendor's name as people know it (`polygon` is Polygon.io). */
export function vendorName(vendor: string): string {
  return VENDOR_NAMES[vendor] ?? vendor;
}

export function feedWords(vendor: string | undefined, feed: string): string {
  return FEED_WORDS[vendor ?? ""]?.[feed] ?? `${feed} feed`;
}

/** Whether the board's prices are not market prices at all (the simulator). */
export function isSimulated(p: ProviderInfo): boolean {
  return p.simulated || p.delay === "simulated";
}

/** Where the prices come from, in words: "Polygon.io (Starter plan)", "a CSV file of daily bars". */
export function sourceWords(p: ProviderInfo): string {
  if (p.vendor !== undefined) return `${vendorName(p.vendor)}${p.feed !== undefined ? ` (${feedWords(p.vendor, p.feed)})` : ""}`;
  if (p.name === "csv") return "a CSV file of daily bars";
  return `the ${p.name} provider`;
}

/**
 * The landing page's line on the board's prices: the simulated-prices notice for the simulator
 * only; otherwise the vendor, its feed and how late its prices are, in words.
 */
export function renderProvider(p: ProviderInfo): Html {
  if (isSimulated(p)) {
    return html`<p class="notice" data-delay="simulated" data-simulated="true"><strong>Simulated prices.</strong> This board was computed from a market simulator (${p.detail}), not from real market prices.</p>`;
  }
  const how = p.delay === undefined ? "; the board does not say how late they are" : `, ${DELAY_WORDS[p.delay]}`;
  return html`<p data-delay="${p.delay ?? "unstated"}" data-simulated="false">Prices from ${sourceWords(p)}${how}. Source: ${p.detail}.</p>`;
}
