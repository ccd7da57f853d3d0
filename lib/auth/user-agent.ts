import Bowser from "bowser";

/** A session's browser and system, read from its User-Agent for the sessions list and e-mails. */
export function describeUserAgent(userAgent: string): { browser: string; system: string } {
  if (!userAgent) return { browser: "Unknown browser", system: "unknown system" };
  const parsed = Bowser.getParser(userAgent.slice(0, 400));
  const browser = parsed.getBrowser();
  const os = parsed.getOS();
  const major = browser.version?.split(".")[0];
  return {
    browser: browser.name ? `${browser.name}${major ? ` ${major}` : ""}` : "Unknown browser",
    // Without the version: browsers freeze it in User-Agent (every Mac says 10.15).
    system: os.name || "unknown system",
  };
}
