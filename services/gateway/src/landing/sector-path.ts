import { SectorLabel } from "@board/proto";

/** Where a sector's page lives (the heat map links there, the pages route it). A sector label as a path segment: "Biotech & Pharma" is biotech-pharma. */
export function sectorSlug(label: SectorLabel): string {
  return label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

export const sectorPath = (label: SectorLabel): string => `/board/sector/${sectorSlug(label)}`;

/** The label a path segment names (its slug, or the label itself in any case), or null. */
export function sectorOf(segment: string): SectorLabel | null {
  const wanted = segment.toLowerCase();
  return SectorLabel.options.find((l) => sectorSlug(l) === wanted || l.toLowerCase() === wanted) ?? null;
}
