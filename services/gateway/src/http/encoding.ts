import type { ContentEncoding } from "@board/proto";

/** gzip when Accept-Encoding lists gzip (or *) with a non-zero quality. */
export function preferredEncoding(acceptEncoding: string | undefined): ContentEncoding {
  if (!acceptEncoding) return "identity";
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (name !== "gzip" && name !== "*" && name !== "x-gzip") continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (q === undefined || Number(q.slice(2)) > 0) return "gzip";
  }
  return "identity";
}
