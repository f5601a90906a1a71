/**
 * The row generators of `npm run bench:xls-merge`, one per spreadsheet type. Adding a type to
 * the benchmark is adding its entry here: per staging table, a function giving row `i` as
 * {column: COPY text or null} (the bench COPYs them in the order xls_staging_preparar gives,
 * so a missing or misspelt column fails loudly), and `alterada` = true for the rows of the
 * "1% changed" scenario (change a compared, non-key value).
 */
import type pg from 'pg';
import type { TipoPlanilha } from '../src/db/xls.js';

export type Linha = Record<string, string | null>;

export interface GeradorTipo {
  tipo: TipoPlanilha;
  /** p_meta of the merge (a RELATORIO18 period, …). */
  meta: Record<string, unknown>;
  /** rows of each staging table for `n` rows of the benchmark (its main table gets n). */
  linhas: (n: number) => Record<string, number>;
  /** row i of a staging table; linha (the sheet row) is added by the bench. */
  gerar: (staging: string, i: number, alterada: boolean) => Linha;
  /** what the merge needs to exist first (the master report's sellers for META, …). */
  preparar?: (pool: pg.Pool, n: number) => Promise<void>;
}

const dia = (i: number) => `2026-11-${String(1 + (i % 28)).padStart(2, '0')}`;

export const GERADORES: GeradorTipo[] = [
  {
    tipo: 'RELATORIO18',
    meta: { periodo_inicio: '2026-11-01', periodo_fim: '2026-11-30' },
    linhas: (n) => ({ faturamento: n, movimento: Math.round(n / 10) }),
    gerar: (staging, i, alterada): Linha => staging === 'faturamento'
      ? ({
          filial: String(i % 20).padStart(2, '0'), nota_fiscal: String(100000 + i), serie: '1', item: String(1 + (i % 3)), emissao: dia(i),
          cliente: `C${i % 5000}`, nome_cliente: `Cliente ${i % 5000}`, vendedor: `V${i % 80}`, nome_vendedor: `Vendedor ${i % 80}`,
          produto: `P${i % 40}`, descricao_produto: `Produto ${i % 40}`, quantidade: '1000.5', valor_unitario: '5.899',
          valor_total: alterada ? '9999.99' : String(5902.45 + (i % 100)),
          placa: i % 10 === 0 ? `ABC${String(1000 + (i % 3000))}` : null, ano_veiculo: i % 10 === 0 ? '2019/2020' : null,
          modelo_veiculo: i % 10 === 0 ? 'Scania' : null,
        } as Linha)
      : ({
          filial: String(i % 20).padStart(2, '0'), data: dia(i), lancamento: String(700000 + i), conta: `1.1.${i % 50}`,
          descricao_conta: 'Conta', historico: alterada ? `Histórico alterado ${i}` : `Histórico ${i}`, debito: String(i % 997), credito: '0',
          placa: null, ano_veiculo: null,
        } as Linha),
  },
  {
    tipo: 'META',
    meta: {},
    linhas: (n) => ({ meta: n }),
    gerar: (_staging, i, alterada) => ({
      competencia: `2026-${String(1 + (Math.floor(i / 50_000) % 12)).padStart(2, '0')}-01`, vendedor: `V${i % 500}`,
      produto: `P${Math.floor(i / 500) % 100}`, meta_volume: alterada ? '1.5' : String(1000 + (i % 977)), meta_margem: String(i % 31),
    }),
    preparar: async (pool) => {
      await pool.query(`insert into bi_vendedor (codigo) select 'V' || g from generate_series(0, 499) g on conflict do nothing`);
    },
  },
];
