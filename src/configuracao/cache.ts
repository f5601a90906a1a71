/**
 * Runtime reads of bi_configuracao, cached for 30 seconds (spec). The trigger on the table
 * NOTIFYs app_config with the changed key, so every replica drops that key at once; the
 * TTL is the net when a notification is lost (and after a LISTEN reconnect, all is dropped).
 */
import type pg from 'pg';
import type { Listener } from '../jobs/listener.js';

export const CONFIG_CACHE_TTL_MS = 30_000;

export interface ConfigEntry {
  valor: string;
  tipo: 'string' | 'integer' | 'boolean' | 'duration';
}

export class ConfiguracaoCache {
  private entries = new Map<string, { value: ConfigEntry | null; at: number }>();

  constructor(private readonly pool: pg.Pool, private readonly ttlMs = CONFIG_CACHE_TTL_MS,
    private readonly now: () => number = Date.now) {}

  async attach(listener: Listener): Promise<void> {
    await listener.on('app_config', (chave) => { this.entries.delete(chave); });
    listener.onReconnect(() => this.entries.clear());
  }

  async get(chave: string): Promise<ConfigEntry | null> {
    const hit = this.entries.get(chave);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const { rows } = await this.pool.query<ConfigEntry>('select valor, tipo from public.bi_configuracao where chave = $1', [chave]);
    const value = rows[0] ?? null;
    this.entries.set(chave, { value, at: this.now() });
    return value;
  }

  async getInteger(chave: string, fallback: number): Promise<number> {
    const e = await this.get(chave);
    return e && e.tipo === 'integer' ? Number(e.valor) : fallback;
  }
}
