// A webhook dispatcher in a process of its own, for tests that kill it (SIGKILL) mid-delivery.
// Env: DATABASE_URL, SERVER_SECRET, DISPATCH_APP_IDS (comma-separated). Prints "ready" once started.
import { startDispatcher } from "@/lib/webhooks/dispatcher";

startDispatcher({
  intervalMs: 50,
  appIds: (process.env.DISPATCH_APP_IDS ?? "").split(",").filter(Boolean),
  allowPrivate: true,
});
process.stdout.write("ready\n");
setInterval(() => {}, 1 << 30); // stay alive until killed
