import { createHash } from "node:crypto";

/** The consent page's one style sheet, inline; the CSP admits exactly this text by its hash. */
export const CONSENT_STYLE = `
:root{color-scheme:light;--ink:#16181d;--muted:#4a5060;--line:#d5d9e0;--accent:#0b57d0}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:var(--ink);background:#fff}
main{max-width:34rem;margin:2rem auto;padding:0 1rem}
h1{font-size:1.5rem;margin:0 0 1rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
.muted{color:var(--muted);font-size:.92rem}
.error{border:1px solid #b3261e;background:#fce8e6;padding:.6rem .9rem;border-radius:6px}
label{display:block;font-weight:600;margin:1.2rem 0 .3rem}
input[type=password]{width:100%;padding:.5rem;font:inherit;border:1px solid var(--line);border-radius:4px}
.actions{display:flex;gap:.8rem;margin-top:1.2rem}
button{font:inherit;padding:.5rem 1.2rem;border-radius:4px;border:1px solid var(--line);background:#fff;cursor:pointer}
button.allow{background:var(--accent);border-color:var(--accent);color:#fff}
button:focus-visible,input:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
`.trim();

export const CONSENT_STYLE_HASH = `'sha256-${createHash("sha256").update(CONSENT_STYLE, "utf8").digest("base64")}'`;
