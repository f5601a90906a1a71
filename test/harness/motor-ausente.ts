/**
 * The one line a run prints when the `engine` lane cannot run (no SYNC_ENGINE_CMD): how many
 * end-to-end tests did not run, and why. A vitest reporter that vitest.config.ts adds only
 * then (the lane's project is left out, so nothing is skipped); it says so only when the run
 * would have selected one of the lane's files (its file filters and --project).
 */
import type { Reporter, Vitest } from 'vitest/node';
import { countTests, selectedBy } from './lanes.js';

export const MOTIVO_SEM_MOTOR = 'SYNC_ENGINE_CMD não definida';

export function linhaSemMotor(testes: number, motivo = MOTIVO_SEM_MOTOR): string {
  return `motor de sincronização: ${testes} ${testes === 1 ? 'teste' : 'testes'} de ponta a ponta não ${testes === 1 ? 'rodou' : 'rodaram'} (${motivo})`;
}

function casaProjeto(filtro: string, nome: string): boolean {
  const re = new RegExp(`^${filtro.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return re.test(nome);
}

export class MotorAusente implements Reporter {
  private vitest: Vitest | undefined;
  constructor(private readonly root: string, private readonly arquivos: string[], private readonly motivo = MOTIVO_SEM_MOTOR) {}

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(): void {
    if (this.arquivos.length === 0) return;
    const projetos = this.vitest?.config.project ?? [];
    if (projetos.length > 0 && !projetos.some((p) => casaProjeto(p, 'engine'))) return;
    // the run's file filters (vitest keeps them on the instance; none = every file)
    const filtros = (this.vitest as unknown as { filenamePattern?: string[] } | undefined)?.filenamePattern ?? [];
    const selecionados = this.arquivos.filter((f) => selectedBy(this.root, f, filtros));
    if (selecionados.length === 0) return;
    process.stdout.write(`${linhaSemMotor(countTests(this.root, selecionados), this.motivo)}\n`);
  }
}
