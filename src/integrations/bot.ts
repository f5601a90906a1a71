/**
 * Messaging bot (Bot API protocol): `POST {BOT_API_URL}/bot<token>/sendMessage` with
 * `{chat_id, text}`. Messages are sent by the `bot_mensagem` job (enqueued by SQL in the
 * same transaction as the outcome it reports), so a failed send is retried by the queue.
 */
export interface BotConfig {
  apiUrl: string;
  token: string;
  chatId: string;
}

export class BotError extends Error {
  constructor(message: string, public readonly retryable: boolean) {
    super(message);
    this.name = 'BotError';
  }
}

export async function sendMessage(cfg: BotConfig, text: string, signal?: AbortSignal): Promise<void> {
  const url = `${cfg.apiUrl.replace(/\/$/, '')}/bot${cfg.token}/sendMessage`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: cfg.chatId, text: text.slice(0, 4096), disable_web_page_preview: true }),
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(10_000)]) : AbortSignal.timeout(10_000),
    });
  } catch (err) {
    throw new BotError(`bot inacessível: ${err instanceof Error ? err.message : String(err)}`, true);
  }
  if (!res.ok) {
    const body = await res.text().catch(() => '');
    // never log the URL: it carries the token
    throw new BotError(`bot respondeu ${res.status}: ${body.slice(0, 200)}`, res.status >= 500 || res.status === 429);
  }
}
