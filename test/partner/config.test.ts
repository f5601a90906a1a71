import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const base = { DATABASE_URL: 'postgres://u@127.0.0.1:1/x', BI_COMERCIAL_XLS_API_TOKEN: 'tok', S3_FILE_STORAGE: 'PSQL' };

describe('order-webhook configuration', () => {
  it('defaults: secret off, watchdog off, 45 business minutes, 24 hours, contingency 15/5, poll 6 h, rescue off, no mail', () => {
    const { config, warnings } = loadConfig(base);
    expect(config.partner).toMatchObject({
      webhookSecret: null, apiUrl: null, apiToken: null, gatePrimeiraCapturaDesde: null, webhookMaxBytes: 16 * 1024 * 1024,
      watchdog: { habilitado: false, limiteMinComercial: 45, limiteHoras: 24, contingenciaAposMinComercial: 15, contingenciaIntervaloMin: 5, pollIntervaloHoras: 6 },
    });
    expect(config.mail.smtpUrl).toBeNull();
    expect(warnings.filter((w) => w.includes('PARTNER'))).toEqual([]);
  });

  it('reads every variable', () => {
    const { config } = loadConfig({
      ...base, PARTNER_WEBHOOK_SECRET: 's', PARTNER_API_URL: 'https://api.parceiro.example/v1/', PARTNER_API_TOKEN: 't',
      PARTNER_WATCHDOG_HABILITADO: 'true', PARTNER_WATCHDOG_LIMITE_MIN_COMERCIAL: '30', PARTNER_WATCHDOG_LIMITE_HORAS: '12',
      PARTNER_GATE_PRIMEIRA_CAPTURA_DESDE: '2026-11-01T00:00:00-03:00', SMTP_URL: 'smtps://u:p@smtp.example:465', MAIL_FROM: 'a@b.example',
    });
    expect(config.partner).toMatchObject({ webhookSecret: 's', apiUrl: 'https://api.parceiro.example/v1', apiToken: 't',
      gatePrimeiraCapturaDesde: '2026-11-01T00:00:00-03:00', watchdog: { habilitado: true, limiteMinComercial: 30, limiteHoras: 12 } });
    expect(config.mail).toEqual({ smtpUrl: 'smtps://u:p@smtp.example:465', from: 'a@b.example' });
  });

  it('refuses half an API configuration, bad dates, URLs and numbers, naming the variable', () => {
    expect(() => loadConfig({ ...base, PARTNER_API_URL: 'http://x.example' })).toThrowError(/PARTNER_API_TOKEN/);
    expect(() => loadConfig({ ...base, PARTNER_API_TOKEN: 't' })).toThrowError(/PARTNER_API_URL/);
    expect(() => loadConfig({ ...base, PARTNER_API_URL: 'ftp://x', PARTNER_API_TOKEN: 't' })).toThrowError(/PARTNER_API_URL/);
    for (const d of ['ontem', '2026-13-45', '01/11/2026']) {
      expect(() => loadConfig({ ...base, PARTNER_GATE_PRIMEIRA_CAPTURA_DESDE: d })).toThrowError(/PARTNER_GATE_PRIMEIRA_CAPTURA_DESDE/);
    }
    expect(() => loadConfig({ ...base, PARTNER_WATCHDOG_LIMITE_MIN_COMERCIAL: '0' })).toThrowError(/PARTNER_WATCHDOG_LIMITE_MIN_COMERCIAL/);
    expect(() => loadConfig({ ...base, PARTNER_WATCHDOG_HABILITADO: 'talvez' })).toThrowError(ConfigError);
    expect(() => loadConfig({ ...base, SMTP_URL: 'http://mail.example' })).toThrowError(/SMTP_URL/);
    expect(() => loadConfig({ ...base, MAIL_FROM: 'ninguem' })).toThrowError(/MAIL_FROM/);
  });

  it('group commit and local spool: defaults, every variable read, bad values refused naming the variable', () => {
    expect(loadConfig(base).config.partner).toMatchObject({
      groupCommit: { max: 64, waitMs: 0, inFlight: 4 },
      spool: { dir: './.data/webhook-spool', maxBytes: 1024 * 1024 * 1024, orcamentoMs: 2000 },
    });
    expect(loadConfig({
      ...base, PARTNER_WEBHOOK_LOTE_MAX: '16', PARTNER_WEBHOOK_LOTE_ESPERA_MS: '3', PARTNER_WEBHOOK_LOTE_EM_VOO: '8', PARTNER_WEBHOOK_SPOOL_DIR: '/data/spool-a',
      PARTNER_WEBHOOK_SPOOL_MAX_BYTES: '0', PARTNER_WEBHOOK_ORCAMENTO_MS: '500',
    }).config.partner).toMatchObject({ groupCommit: { max: 16, waitMs: 3, inFlight: 8 }, spool: { dir: '/data/spool-a', maxBytes: 0, orcamentoMs: 500 } });
    for (const [k, v] of [['PARTNER_WEBHOOK_LOTE_MAX', '0'], ['PARTNER_WEBHOOK_LOTE_ESPERA_MS', '-1'], ['PARTNER_WEBHOOK_LOTE_EM_VOO', '0'], ['PARTNER_WEBHOOK_ORCAMENTO_MS', '5'],
      ['PARTNER_WEBHOOK_SPOOL_MAX_BYTES', '1GB'], ['PARTNER_WEBHOOK_ORCAMENTO_MS', '2s']] as const) {
      expect(() => loadConfig({ ...base, [k]: v }), `${k}=${v}`).toThrowError(new RegExp(k));
    }
  });

  it('warns in production when the webhook has no secret', () => {
    expect(loadConfig({ ...base, NODE_ENV: 'production' }).warnings.join('\n')).toMatch(/PARTNER_WEBHOOK_SECRET/);
    expect(loadConfig({ ...base, NODE_ENV: 'production', PARTNER_WEBHOOK_SECRET: 's' }).warnings.filter((w) => w.includes('PARTNER'))).toEqual([]);
  });
});
