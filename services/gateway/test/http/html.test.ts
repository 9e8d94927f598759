import { describe, expect, it } from "vitest";
import { escapeHtml, html, trusted } from "../../src/http/html.js";

describe("html", () => {
  it("escapes the five characters that matter in content and quoted attributes", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
  });

  it("escapes every interpolated value, nested lists included, and keeps its own markup", () => {
    const name = `"><script>alert(1)</script>`;
    const out = html`<p title="${name}">${[name, html`<b>${name}</b>`]}</p>`.markup;
    expect(out).not.toContain("<script>");
    expect(out).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;<b>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</b></p>',
    );
  });

  it("renders null, undefined and false as nothing, numbers as text, trusted markup as is", () => {
    expect(html`${null}${undefined}${false}${0}${trusted("<i>x</i>")}`.markup).toBe("0<i>x</i>");
  });
});
