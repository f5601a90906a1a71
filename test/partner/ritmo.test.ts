/**
 * The learned silence alarm, in SQL: partner_ritmo_aprender learns the expected
 * order rate per weekday and hour from eight weeks of simulated deliveries (holidays apart),
 * partner_silencio_aprendido says when the silence becomes improbable (P < 1 %), and
 * partner_tick opens the episode at that minute — earlier than the fixed thresholds where orders
 * are dense, never later anywhere, never earlier during expected quiet, and on the fixed
 * thresholds alone (saying so) when there is no history. Each case asserts the exact minute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/db.js';
import { testEnv } from '../harness/service.js';
import { loadConfig } from '../../src/config.js';
import { partnerConfigurar, partnerTick, type Alerta } from '../../src/pedidos/db.js';
import { textoParado } from '../../src/pedidos/textos.js';

let db: TestDatabase;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => db.pool.query(sql, params).then((r) => r.rows as T[]);

/** Fresh state, settings from the environment (watchdog and API on), the watch started at `desde`. */
async function reset(env: Record<string, string> = {}, desde = '2026-10-03T00:00:00-03:00') {
  await q(`truncate partner_webhook, partner_pedido, partner_episodio, partner_contingencia, partner_aviso, partner_puxada, partner_ritmo cascade`);
  await q(`delete from feriado where abrangencia <> 'nacional'`);
  await q('delete from app.job');
  await q('update partner_configuracao set monitorando_desde = null');
  const { config } = loadConfig(testEnv(db, { PARTNER_WATCHDOG_HABILITADO: 'true', PARTNER_API_URL: 'http://127.0.0.1:9', PARTNER_API_TOKEN: 't', ...env }));
  await partnerConfigurar(db.pool, config.partner, new Date(desde));
}

/**
 * A busy shop: every business day (Mon–Fri, no holiday) of the 8 weeks before 2026-11-30, 40
 * orders an hour from 09:00 to 11:00 (one each 1.5 minutes) and one at 15:00; `sabado` adds one
 * order each Saturday at 10:30 (a quiet weekend). Each order is one delivery with its code.
 */
async function historico(opts: { sabado?: boolean } = {}) {
  await q(`
    insert into partner_webhook (corpo, recebido_em, situacao, resultado, processado_em, code)
    select '{}', t, 'NORMALIZADO', 'criado', t, 'H-' || to_char(t at time zone 'America/Sao_Paulo', 'YYYYMMDDHH24MISS')
      from generate_series('2026-10-05'::date, '2026-11-27'::date, interval '1 day') d
     cross join lateral (
       select (d::date + time '09:00' + k * interval '90 seconds') at time zone 'America/Sao_Paulo' as t
         from generate_series(0, 79) k
        where public.dia_util(d::date)
       union all
       select (d::date + time '15:00') at time zone 'America/Sao_Paulo' where public.dia_util(d::date)
       union all
       select (d::date + time '10:30') at time zone 'America/Sao_Paulo' where $1 and extract(isodow from d) = 6) x`, [opts.sabado ?? false]);
}

async function entrega(at: string, code = `U-${at}`) {
  await q(`insert into partner_webhook (corpo, recebido_em, situacao, resultado, processado_em, code) values ('{}', $1, 'NORMALIZADO', 'criado', $1, $2)`, [at, code]);
}

const aprendido = async (at: string) => (await q<{ r: Record<string, any> }>('select partner_silencio_aprendido($1) r', [at]))[0]!.r;

/** The first minute in [de, ate] at which the learned alarm says dispara (pure: no tick). */
async function primeiroMinutoAprendido(de: string, ate: string): Promise<string | null> {
  const [r] = await q<{ t: string | null }>(`
    select to_char(min(t) at time zone 'America/Sao_Paulo', 'YYYY-MM-DD HH24:MI') t
      from generate_series($1::timestamptz, $2::timestamptz, interval '1 minute') t
     where (partner_silencio_aprendido(t) ->> 'dispara')::boolean`, [de, ate]);
  return r!.t;
}

const local = (iso: unknown) => new Intl.DateTimeFormat('sv-SE', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'medium' })
  .format(new Date(String(iso)));

/** partner_tick at `antes` opens nothing, at `em` opens the episode with `motivo`. */
async function abreEm(antes: string, em: string, motivo: string) {
  expect(await partnerTick(db.pool, new Date(antes))).not.toHaveProperty('episodio_aberto');
  const r = await partnerTick(db.pool, new Date(em));
  expect(r).toHaveProperty('episodio_aberto');
  expect(r.motivo).toBe(motivo);
  const [ep] = await q<{ aberto_em: Date; motivo: string }>('select aberto_em, motivo from partner_episodio');
  expect(local(ep!.aberto_em)).toBe(local(em));
  return r;
}

describe('learned silence alarm', () => {
  it('busy weekday morning: 40 orders an hour expected, it fires at 09:17 instead of 09:55, with the contingency', async () => {
    await reset();
    await historico();
    await entrega('2026-11-30T09:10:00-03:00');
    // 40 weekdays from 05/10 to 27/11 less three holidays (12/10, 02/11, 20/11), 81 orders each
    expect(await q(`select partner_ritmo_aprender('2026-11-30T09:10:00-03:00') n`)).toEqual([{ n: 37 * 81 }]);
    // Mondays 05/10, 19/10, 26/10, 09/11, 16/11, 23/11 (12/10 and 02/11 are holidays, learned apart)
    expect(await q(`select pedidos, dias from partner_ritmo where tipo_dia = 1 and hora = 9`)).toEqual([{ pedidos: 240, dias: 6 }]);
    expect(await q(`select pedidos, dias from partner_ritmo where tipo_dia = 0 and hora = 9`)).toEqual([{ pedidos: 0, dias: 4 }]);
    const a = await aprendido('2026-11-30T09:10:00-03:00');
    expect(a.base).toBe('aprendido');
    expect(a.faixa_atual).toMatchObject({ taxa_hora: 40, dias: 6, tipo_dia: 1, hora: 9 });
    // ln(100) / (40/60) = 6.9078 minutes after 09:10
    expect(local(a.dispara_em)).toBe('2026-11-30 09:16:54');
    expect(local(a.fixo_em)).toBe('2026-11-30 09:55:00');
    expect(await primeiroMinutoAprendido('2026-11-30T09:10:00-03:00', '2026-11-30T09:55:00-03:00')).toBe('2026-11-30 09:17');
    const r = await abreEm('2026-11-30T09:16:00-03:00', '2026-11-30T09:17:00-03:00', 'ritmo_aprendido');
    expect(r.contingencia).toBe('LIGADA'); // the contingency at 15 business minutes is an upper bound too
    const [av] = await q<{ tipo: string; dados: Record<string, any> }>(`select tipo, dados from partner_aviso where tipo = 'webhook_parado'`);
    expect(av!.dados.aprendido.esperados).toBe(4.67);
    const texto = textoParado({ id: 1, tipo: 'webhook_parado', dados: av!.dados } as unknown as Alerta, 'https://x/webhook/partner');
    expect(texto).toContain('esperados ~5 pedidos desde 09:10, chegaram 0');
  });

  it('never later: with the learned alarm off (PARTNER_WATCHDOG_APRENDIDO_SEMANAS=0) the same silence alerts at 09:55', async () => {
    await reset({ PARTNER_WATCHDOG_APRENDIDO_SEMANAS: '0' });
    await historico();
    await entrega('2026-11-30T09:10:00-03:00');
    expect((await aprendido('2026-11-30T09:10:00-03:00'))).toMatchObject({ base: 'fixo', motivo_fixo: 'desligado', dispara_em: null });
    await abreEm('2026-11-30T09:54:00-03:00', '2026-11-30T09:55:00-03:00', 'limite_min_comercial');
  });

  it('a stricter threshold (PARTNER_WATCHDOG_APRENDIDO_LIMIAR_PCT=0.1) waits longer: ln(1000)/(40/60) → 09:21', async () => {
    await reset({ PARTNER_WATCHDOG_APRENDIDO_LIMIAR_PCT: '0.1' });
    await historico();
    await entrega('2026-11-30T09:10:00-03:00');
    expect(await q('select aprendido_limiar::float8 l, aprendido_semanas s from partner_configuracao')).toEqual([{ l: 0.001, s: 8 }]);
    await abreEm('2026-11-30T09:20:00-03:00', '2026-11-30T09:21:00-03:00', 'ritmo_aprendido');
  });

  it('quiet weekend: one order each Saturday expected, so Friday 17:50 still alerts on the 24 h net, Saturday 17:50', async () => {
    await reset();
    await historico({ sabado: true });
    await entrega('2026-11-27T17:50:00-03:00');
    await q(`select partner_ritmo_aprender('2026-11-27T17:50:00-03:00')`);
    expect(await q(`select pedidos, dias from partner_ritmo where tipo_dia = 6 and hora = 10`)).toEqual([{ pedidos: 7, dias: 7 }]);
    const a = await aprendido('2026-11-28T17:49:00-03:00');
    expect(a).toMatchObject({ base: 'aprendido', dispara_em: null, esperados: 1 });
    expect(await primeiroMinutoAprendido('2026-11-27T17:50:00-03:00', '2026-11-28T17:50:00-03:00')).toBeNull();
    await abreEm('2026-11-28T17:49:00-03:00', '2026-11-28T17:50:00-03:00', 'limite_horas');
  }, 90_000); // a day of minutes scanned

  it('a holiday is learned apart: a Monday off (a municipal holiday) after 09:10 waits for Tuesday 08:45, not 09:17', async () => {
    await reset();
    await historico();
    await q(`insert into feriado (data, nome, abrangencia) values ('2026-11-30', 'Aniversário da cidade', 'municipal')`);
    await entrega('2026-11-30T09:10:00-03:00');
    await q(`select partner_ritmo_aprender('2026-11-30T09:10:00-03:00')`);
    // 12/10, 02/11, 15/11 (a Sunday) and 20/11: four holidays of history, no order on any of them
    expect(await q(`select sum(pedidos)::int pedidos, min(dias) dias from partner_ritmo where tipo_dia = 0`)).toEqual([{ pedidos: 0, dias: 4 }]);
    const a = await aprendido('2026-11-30T09:17:00-03:00');
    expect(a).toMatchObject({ base: 'aprendido', dispara_em: null, esperados: 0 });
    expect(local(a.fixo_em)).toBe('2026-12-01 08:45:00');
    expect(await primeiroMinutoAprendido('2026-11-30T09:10:00-03:00', '2026-12-01T08:45:00-03:00')).toBeNull();
    await abreEm('2026-12-01T08:44:00-03:00', '2026-12-01T08:45:00-03:00', 'limite_min_comercial');
  }, 90_000);

  it('a shop with no history falls back to the fixed thresholds and says so: 09:55', async () => {
    await reset({}, '2026-11-30T08:00:00-03:00');
    await entrega('2026-11-30T09:10:00-03:00');
    const a = await aprendido('2026-11-30T09:30:00-03:00');
    expect(a).toMatchObject({ base: 'fixo', motivo_fixo: 'historico_insuficiente', dispara_em: null, esperados: 0 });
    expect(await primeiroMinutoAprendido('2026-11-30T09:10:00-03:00', '2026-11-30T09:55:00-03:00')).toBeNull();
    await abreEm('2026-11-30T09:54:00-03:00', '2026-11-30T09:55:00-03:00', 'limite_min_comercial');
    const [av] = await q<{ dados: Record<string, any> }>(`select dados from partner_aviso where tipo = 'webhook_parado'`);
    expect(textoParado({ id: 1, tipo: 'webhook_parado', dados: av!.dados } as unknown as Alerta, 'https://x/webhook/partner'))
      .toContain('Sem histórico suficiente para o ritmo aprendido: valeram os limites fixos.');
    const s = await q<{ r: Record<string, any> }>(`select partner_status('2026-11-30T09:30:00-03:00') r`);
    expect(s[0]!.r.silencio.aprendido).toMatchObject({ base: 'fixo', motivo_fixo: 'historico_insuficiente' });
  });
});
