import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { internalWords } from "@/lib/api/openapi/reference";
import DocsPage from "./page";

describe("/docs", () => {
  it("renders the reference, and its visible text holds no internal word", () => {
    const html = renderToStaticMarkup(createElement(DocsPage));
    const text = html.replace(/<[^>]*>/g, " ");
    expect(text).toContain("Token service API");
    expect(text).toContain("insufficient_scope");
    for (const word of [...internalWords, "SPEC"]) expect(text).not.toContain(word);
    // Code spans are shown as code, never as backticks.
    expect(text).not.toContain("`");
  });
});
