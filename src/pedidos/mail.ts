/**
 * Outgoing e-mail over SMTP (nodemailer). SMTP_URL (smtp:// or smtps://, credentials in the
 * URL) and MAIL_FROM; without SMTP_URL there is no mailer and callers record that nothing
 * was sent.
 */
import nodemailer from 'nodemailer';
import type { MailConfig } from '../config.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(msg: MailMessage): Promise<void>;
  close(): void;
}

export function createMailer(cfg: MailConfig): Mailer | null {
  if (!cfg.smtpUrl) return null;
  const transport = nodemailer.createTransport(cfg.smtpUrl, {
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  } as Parameters<typeof nodemailer.createTransport>[1]);
  return {
    async send(msg) {
      const info = await transport.sendMail({ from: cfg.from, to: msg.to, subject: msg.subject, text: msg.text });
      const rejected = (info.rejected ?? []).map(String);
      if (rejected.length > 0) throw new Error(`servidor SMTP recusou ${rejected.join(', ')}`);
    },
    close() { transport.close(); },
  };
}
