/**
 * Delivering alerts: one message per run and channel, to a Slack-compatible webhook (src/run/notify.ts's post) or
 * by email through nodemailer's SMTP transport, with the report attached. A receiver that is down is a warning; its
 * alerts stay owed in the outbox and go with the next run.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { existsSync } from 'node:fs';
import type { AlertChannel } from '../../pipeline/index.js';
import { postText, redactedWebhook } from '../../run/notify.js';
import type { Alert } from './evaluate.js';

/** A channel's id in the outbox: never the webhook's address itself (its path is a secret). */
export function channelId(c: AlertChannel): string {
  return c.kind === 'webhook' ? `webhook:${createHash('sha256').update(c.url).digest('hex').slice(0, 16)}` : `email:${[...c.to].sort().join(',')}`;
}

export function channelShown(c: AlertChannel): string {
  return c.kind === 'webhook' ? `webhook ${c.shown}` : `email to ${c.to.join(', ')}`;
}

export interface Message { runId: string; pipeline: string; alerts: readonly Alert[]; reportPath?: string }

export function messageSubject(m: Message): string {
  return `seo-etl ${m.pipeline}: ${m.alerts.length} alert${m.alerts.length === 1 ? '' : 's'} for run ${m.runId}`;
}

export function messageText(m: Message): string {
  return [messageSubject(m), ...m.alerts.map((a) => `- ${a.text}`), ...(m.reportPath ? [`report: ${m.reportPath}`] : [])].join('\n');
}

export interface DeliverOptions {
  smtpUrl: string;
  emailFrom: string;
  timeoutMs?: number;
}

export async function deliver(c: AlertChannel, m: Message, o: DeliverOptions): Promise<{ ok: true } | { ok: false; why: string }> {
  const timeoutMs = o.timeoutMs ?? 10_000;
  if (c.kind === 'webhook') {
    const r = await postText(c.url, messageText(m), { timeoutMs });
    return r.ok ? r : { ok: false, why: r.why.replace(`${redactedWebhook(c.url)}: `, '') };
  }
  const u = new URL(o.smtpUrl);
  const { default: nodemailer } = await import('nodemailer'); // loaded only by a run that sends mail
  const transport = nodemailer.createTransport({
    host: u.hostname, port: Number(u.port) || (u.protocol === 'smtps:' ? 465 : 587), secure: u.protocol === 'smtps:',
    ...(u.username ? { auth: { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } } : {}),
    connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs,
  });
  try {
    await transport.sendMail({
      from: o.emailFrom, to: c.to, subject: messageSubject(m), text: messageText(m),
      // The report is one self-contained file: attached, it opens wherever the mail is read.
      attachments: m.reportPath && existsSync(m.reportPath) ? [{ filename: path.basename(m.reportPath), path: m.reportPath, contentType: 'text/html' }] : [],
    });
    return { ok: true };
  } catch (err) {
    // The SMTP address carries the password: only its host is named.
    return { ok: false, why: `SMTP ${new URL(o.smtpUrl).host}: ${(err as Error).message}` };
  } finally {
    transport.close();
  }
}
