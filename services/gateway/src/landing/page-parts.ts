import { DISCLAIMER } from "@board/proto";
import { html } from "../http/html.js";

/** Said at the top of every page while payments run on development chains. */
export const DEVELOPMENT_BANNER = html`<p class="dev-payments" role="alert" data-payments="development"><strong>Development payments: local chains and stand-ins, no real money.</strong> Every rail here settles on chains started on this machine; nothing paid here is worth anything (<a href="/api/board/status">status</a>: <code>payments.mode</code> is <code>development</code>).</p>`;

/** The foot of every page: the disclaimer, and what is never shown. */
export const PAGE_FOOTER = html`<footer>
<p>${DISCLAIMER} Scoring formulas and methodology are not shown. The output is identical for every reader.</p>
</footer>`;
