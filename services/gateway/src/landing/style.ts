import { createHash } from "node:crypto";

/**
 * The page's one style sheet, inline (no external fetches). The Content-Security-Policy
 * admits exactly this text by its hash, so no other inline style can apply.
 */
export const STYLE = `
:root{color-scheme:light;--ink:#16181d;--muted:#4a5060;--line:#d5d9e0;--panel:#f6f7f9;--accent:#0b57d0}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:#fff}
header,main,footer{max-width:72rem;margin:0 auto;padding:0 1rem}
header{padding-top:1.5rem}
h1{font-size:1.9rem;margin:0 0 .5rem}
h2{font-size:1.4rem;margin:2.2rem 0 .6rem;border-bottom:2px solid var(--line);padding-bottom:.25rem}
h3{font-size:1.1rem;margin:0 0 .4rem}
a{color:var(--accent)}
a:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em;background:var(--panel);padding:0 .2em;border-radius:3px}
.lede{font-size:1.08rem;max-width:50rem}
.muted{color:var(--muted)}
.notice{border:1px solid #c9a227;background:#fff7d6;padding:.75rem 1rem;border-radius:6px;margin:1rem 0}
.notice.warming{border-color:#8a94a6;background:#eef1f6}
.dev-payments{margin:0;padding:.8rem 1rem;background:#b3261e;color:#fff;font-size:1.1rem;text-align:center}
.dev-payments a{color:#fff}
.dev-payments code{background:none;color:inherit}
.asof{font-weight:600}
.books{display:grid;gap:1rem;margin:1rem 0}
.book{border:1px solid var(--line);border-radius:8px;padding:1rem;background:#fff}
.verdict{margin:.2rem 0}
.verdict strong{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;padding:.1rem .45rem;border-radius:4px;border:1px solid var(--line)}
.stance-risk-on strong{background:#c9ecd2}
.stance-be-selective strong{background:#fbe7b5}
.stance-stand-down strong{background:#f6c9c4}
.regime-line{margin:.2rem 0 .7rem}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.93rem}
caption{text-align:left;font-weight:600;padding:.3rem 0}
th,td{border-bottom:1px solid var(--line);padding:.35rem .5rem;text-align:left;vertical-align:top}
thead th{background:var(--panel)}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tbody th{white-space:nowrap}
.heat{display:grid;grid-template-columns:repeat(auto-fill,minmax(11.5rem,1fr));gap:.5rem;list-style:none;padding:0;margin:.5rem 0}
.heat li{border:1px solid rgba(0,0,0,.18);border-radius:6px;padding:.5rem .6rem;min-height:5.6rem}
.heat .sector{display:block;font-weight:700}
.heat a.sector{color:var(--ink)}
.heat .score{font-size:1.35rem;font-weight:700;font-variant-numeric:tabular-nums}
.heat .detail{display:block;font-size:.85rem}
.band-0{background:#f4b7b0}
.band-1{background:#f9d5b7}
.band-2{background:#f1ecc4}
.band-3{background:#cfe9bd}
.band-4{background:#93d3a2}
.legend{display:flex;flex-wrap:wrap;gap:.4rem;list-style:none;padding:0;margin:.4rem 0 0;font-size:.85rem}
.legend li{border:1px solid rgba(0,0,0,.18);border-radius:4px;padding:.1rem .5rem}
dl.pay dt{font-weight:700;margin-top:.8rem}
dl.pay dd{margin:.2rem 0 0 1rem}
dl.connect pre{overflow-x:auto;background:rgba(0,0,0,.04);border:1px solid var(--line);border-radius:4px;padding:.5rem .7rem;font-size:.85rem}
ul.docs{columns:2 20rem;padding-left:1.2rem}
footer{margin-top:2.5rem;padding-bottom:2rem;border-top:1px solid var(--line);font-size:.9rem;color:var(--muted)}
`.trim();

/** The CSP source that admits STYLE: its sha256, base64. */
export const STYLE_HASH = `'sha256-${createHash("sha256").update(STYLE, "utf8").digest("base64")}'`;
