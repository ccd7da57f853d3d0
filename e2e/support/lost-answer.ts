import { expect, type Page } from "@playwright/test";
import { rememberSecretsIn } from "./secrets";

/**
 * The next server action POST to `path` (the next one `when` picks by its body) does its work, but
 * its answer never reaches the browser: the request reaches the server (`route.fetch()`), then is
 * aborted for the browser. Answers the lost answer's text, once lost; its secrets are remembered.
 */
export async function loseNextAnswer(
  page: Page,
  path: string,
  when: (body: string) => boolean = () => true,
): Promise<() => string> {
  let lost: string | undefined;
  await page.route(
    (url) => url.pathname === path,
    async (route) => {
      const request = route.request();
      if (lost === undefined && request.method() === "POST" && when(request.postData() ?? "")) {
        const answer = await route.fetch();
        lost = await answer.text();
        rememberSecretsIn(lost, "lost answer");
        await route.abort("connectionreset");
      } else await route.fallback();
    },
  );
  return () => {
    expect(lost, "an answer was lost").toBeTruthy();
    return lost as string;
  };
}
