import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** A mail as a test SMTP server received it. */
export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
}

/** The mails of `received` sent to any of `people`, in the order received. */
export const mailsTo = (received: readonly ReceivedMail[], ...people: { email: string }[]): ReceivedMail[] =>
  received.filter((mail) => people.some((person) => person.email === mail.to));

/**
 * A real SMTP server on 127.0.0.1 (smtp-server, no TLS or auth), for the reminder and notification
 * tests: the mails it received, its `smtp://` URL, and `close`.
 */
export async function startTestSmtpServer(): Promise<{
  received: ReceivedMail[];
  url: string;
  close: () => Promise<void>;
}> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
          received.push({ to: to?.value[0]?.address ?? "", subject: mail.subject ?? "", text: mail.text ?? "" });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    received,
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
