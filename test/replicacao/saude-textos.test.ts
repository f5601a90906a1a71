/** The health panel's words: bytes and durations as staff read them, and the headline's order of concerns. */
import { describe, expect, it } from 'vitest';
import { bytesTexto, duracaoTexto, nivelSlot, situacao, type MotorSaude, type SlotSaude } from '../../src/replicacao/saude.js';

const slot = (x: Partial<SlotSaude> = {}): SlotSaude => ({
  slotName: 'powersync_1_abc', active: true, activePid: 123, confirmedFlushLsn: '0/16B3748', currentLsn: '0/16B3800',
  lagBytes: 184, retainedBytes: 2000, writeLagSeconds: null, flushLagSeconds: null, replayLagSeconds: null,
  walStatus: 'reserved', safeWalSize: null, inactiveSince: null, inactiveAtLeast: null, ...x,
});
const espacos = (t: string) => t.replace(/\u00a0/g, ' ');
const acessivel: MotorSaude = { configurado: true, acessivel: true, httpStatus: 200, erro: null, duracaoMs: 4 };
const semMotor: MotorSaude = { configurado: false, acessivel: null, httpStatus: null, erro: null, duracaoMs: null };
const fora: MotorSaude = { configurado: true, acessivel: false, httpStatus: null, erro: 'conexão recusada', duracaoMs: 1 };

describe('bytesTexto and duracaoTexto', () => {
  it('bytes in powers of 1000 with a pt-BR decimal comma', () => {
    // a no-break space before the unit: "14 s" never splits at the end of a line
    expect(bytesTexto(12_500)).toBe('12,5\u00a0kB');
    expect([0, 999, 1000, 12_500, 999_999, 3_200_000, 1_100_000_000, 2.5e12].map(bytesTexto).map(espacos))
      .toEqual(['0 bytes', '999 bytes', '1 kB', '12,5 kB', '1 MB', '3,2 MB', '1,1 GB', '2,5 TB']);
    expect(bytesTexto(null)).toBe('—');
  });

  it('durations in words', () => {
    expect(duracaoTexto(200)).toBe('3\u00a0min 20\u00a0s');
    expect([0.04, 0.4, 9.96, 42, 200, 3600, 7500, 86_400, 100_000].map(duracaoTexto).map(espacos))
      .toEqual(['0 s', '0,4 s', '10 s', '42 s', '3 min 20 s', '1 h', '2 h 5 min', '1 dia', '1 dia 3 h']);
    expect(duracaoTexto(null)).toBe('—');
  });
});

describe('situacao', () => {
  const agora = new Date('2026-11-28T12:00:00Z');

  it('in order: lost WAL, the engine down (with or without a reader), no slot, no client, a stray slot, a lag, in order', () => {
    expect(situacao(acessivel, [slot({ walStatus: 'lost' })], agora).titulo).toBe('Replicação perdida');
    expect(situacao(fora, [slot({ active: false, activePid: null })], agora).titulo).toBe('Replicação parada: motor inacessível');
    expect(situacao(fora, [slot()], agora).titulo).toBe('Replicação interrompida: motor inacessível');
    expect(situacao(acessivel, [], agora)).toMatchObject({ nivel: 'erro', titulo: 'Replicação parada: nenhum slot do motor' });
    expect(situacao(acessivel, [slot({ active: false, inactiveSince: '2026-11-28T10:00:00.000Z', inactiveAtLeast: false })], agora))
      .toMatchObject({ nivel: 'erro', titulo: 'Replicação parada', texto: expect.stringContaining('(há 2\u00a0h)') });
    expect(situacao(semMotor, [slot({ active: false, inactiveSince: '2026-11-28T11:30:00.000Z', inactiveAtLeast: true })], agora).texto)
      .toContain('(há pelo menos 30\u00a0min)');
    expect(situacao(acessivel, [slot({ active: false }), slot({ slotName: 'powersync_2' })], agora))
      .toMatchObject({ nivel: 'atencao', titulo: 'Replicação com slot sem cliente' });
    expect(situacao(acessivel, [slot({ lagBytes: 300e6 })], agora)).toMatchObject({ nivel: 'atencao', titulo: 'Replicação atrasada' });
    expect(situacao(acessivel, [slot({ replayLagSeconds: 400 })], agora).titulo).toBe('Replicação atrasada');
    expect(situacao(acessivel, [slot({ walStatus: 'unreserved' })], agora).titulo).toBe('Replicação atrasada');
    expect(situacao(acessivel, [slot()], agora)).toMatchObject({ nivel: 'ok', titulo: 'Replicação em dia' });
    // an engine not configured is not a problem of its own: the slots tell
    expect(situacao(semMotor, [slot()], agora).nivel).toBe('ok');
  });

  it("a slot's level: the time lag read is the engine's replay, else flush, else write", () => {
    expect(nivelSlot(slot({ writeLagSeconds: 900, replayLagSeconds: 1 }))).toBe('ok');
    expect(nivelSlot(slot({ writeLagSeconds: 900 }))).toBe('atencao');
    expect(nivelSlot(slot({ active: false }))).toBe('erro');
  });
});
