import { type APIRequestContext, type APIResponse, test as base, type Page } from "@playwright/test";
import { rememberSecret, rememberSecretsIn, rememberSecretsInRequest, secretField } from "./secrets";

export { expect } from "@playwright/test";

/**
 * Playwright's `test` with a recorder of secrets (see secrets.ts): every spec imports `test` from
 * here, so whatever a spec's browser or API calls see or send is remembered without the spec
 * naming it — pit- tokens and shown-once client secrets on screens, codes in redirect URLs,
 * passwords and secrets in posted forms, tokens in API answers.
 */

/** Shown-once secrets on screens, read from the DOM as they appear (server actions do not navigate). */
const shownOnce = ["pit-token", "client-secret", "webhook-secret"];

async function recordPage(page: Page): Promise<void> {
  await page.exposeBinding("__rememberShownSecret", (_source, testId: string, value: string) =>
    rememberSecret(value.trim(), `screen: ${testId}`),
  );
  await page.addInitScript((testIds: string[]) => {
    const report = () => {
      for (const id of testIds)
        for (const el of document.querySelectorAll(`[data-testid="${id}"]`)) {
          const text = el.textContent ?? "";
          // biome-ignore lint/suspicious/noExplicitAny: the binding exists on window at run time
          if (text.trim()) (window as any).__rememberShownSecret(id, text);
        }
    };
    new MutationObserver(report).observe(document, { subtree: true, childList: true, characterData: true });
    document.addEventListener("DOMContentLoaded", report);
  }, shownOnce);
  page.on("request", (request) => {
    rememberSecretsInRequest(request.url(), request.postData(), `browser ${request.method()}`);
  });
  page.on("response", async (response) => {
    const type = response.headers()["content-type"] ?? "";
    if (!/json|text|x-component/.test(type)) return;
    try {
      rememberSecretsIn(await response.text(), `browser answer ${new URL(response.url()).pathname}`);
    } catch {
      // the body is gone (navigated away); the DOM observer saw what was shown
    }
  });
}

type Options = { form?: Record<string, unknown>; data?: unknown; headers?: Record<string, string> };

/** Wraps the API client: secret fields sent (form, JSON, Bearer) and received (JSON answers). */
function recordRequests(request: APIRequestContext): APIRequestContext {
  const methods = new Set(["get", "post", "put", "patch", "delete", "head", "fetch"]);
  return new Proxy(request, {
    get(target, property, receiver) {
      const original = Reflect.get(target, property, receiver);
      if (typeof property !== "string" || !methods.has(property) || typeof original !== "function") return original;
      return async (url: string, options: Options = {}) => {
        const label = `api ${property} ${url}`;
        for (const [key, value] of Object.entries(options.form ?? {}))
          if (typeof value === "string" && secretField.test(key)) rememberSecret(value, `${label}: ${key}`);
        if (options.data !== undefined)
          rememberSecretsIn(typeof options.data === "string" ? options.data : JSON.stringify(options.data), label);
        const bearer = /^Bearer (.+)$/i.exec(options.headers?.authorization ?? options.headers?.Authorization ?? "");
        rememberSecret(bearer?.[1], `${label}: bearer`);
        const response = (await original.call(target, url, options)) as APIResponse;
        try {
          rememberSecretsIn(await response.text(), `${label}: answer`);
        } catch {
          // no body
        }
        return response;
      };
    },
  });
}

export const test = base.extend({
  page: async ({ page }, use) => {
    await recordPage(page);
    await use(page);
  },
  request: async ({ request }, use) => {
    await use(recordRequests(request));
  },
});
