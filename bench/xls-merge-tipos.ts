// @bench-helper
/**
 * The row generators of `npm run bench -- xls-merge`, one per spreadsheet type. Adding a type to
 * the benchmark is adding its entry here: per staging table, a function giving row `i` as
 * {column: COPY text or null} (the bench COPYs them in the order xls_staging_preparar gives,
 * so a missing or misspelt column fails loudly), and `alterada` = true for the rows of the
 * "1% changed" scenario (change a compared, non-key value).
 */
import type pg from 'pg';
import type { TipoPlanilha } from '../src/xlsx/types.js';

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

const pad = (n: number, w: number) => String(n).padStart(w, '0');
/** A day from 2026-09-01 on (d = 0, 1, …). */
const diaDe = (d: number) => new Date(Date.UTC(2026, 8, 1) + d * 86_400_000).toISOString().slice(0, 10);
const cnpj = (i: number) => pad(10_000_000_000_000 + i, 14);
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

  // ---- the eight types besides RELATORIO18 and META (docs/tipos.md) ----
  {
    tipo: 'MARGEM_CONSOLIDADA',
    meta: {},
    linhas: (n) => ({ margem_consolidada: n }),
    gerar: (_s, i, alterada) => ({
      competencia: `2026-${pad(1 + (Math.floor(i / 20_000) % 12), 2)}-01`, filial: pad(i % 50, 2), produto: `P${Math.floor(i / 50) % 400}`,
      volume: '1000', receita_liquida: '5000.5', cmv: '4000', margem_total: alterada ? '9.99' : '1000.5', margem_por_litro: '1.0005',
    }),
  },
  {
    tipo: 'MARGEM_DIA',
    meta: {},
    linhas: (n) => ({ margem_dia: n }),
    gerar: (_s, i, alterada) => ({
      data: diaDe(Math.floor(i / 2000)), filial: pad(i % 20, 2), cliente: `C${Math.floor(i / 20) % 5000}`,
      nome_cliente: `Cliente ${Math.floor(i / 20) % 5000}`, vendedor: 'V1', produto: `P${i % 20}`, volume: '100', preco_medio: '6.1',
      custo_medio: '5.5', margem: alterada ? '99' : '60', cnpj_cpf: null, classe: null, municipio: null, uf: null, prazo: i % 3 === 0 ? null : '28',
    }),
  },
  {
    tipo: 'META_CARTEIRA',
    meta: {},
    linhas: (n) => ({ meta_carteira: n }),
    gerar: (_s, i, alterada) => ({
      competencia: `2026-${pad(1 + (Math.floor(i / 20_000) % 12), 2)}-01`, cliente: `C${Math.floor(i / 4) % 5000}`, produto: `P${i % 4}`,
      meta_volume: alterada ? '1' : '500',
    }),
    preparar: async (pool) => {
      await pool.query(`insert into bi_cliente (codigo, nome) select 'C' || g, 'Cliente ' || g from generate_series(0, 4999) g on conflict do nothing`);
    },
  },
  {
    tipo: 'POSTOS',
    meta: {},
    linhas: (n) => ({ posto: n }),
    gerar: (_s, i, alterada) => ({
      cnpj: cnpj(i), razao_social: `Auto Posto ${i} Ltda`, nome_fantasia: `Posto ${i}`, bandeira: alterada ? 'Branca' : 'Ipiranga',
      endereco: `Rua ${i}`, bairro: 'Centro', municipio: 'Cuiabá', uf: 'MT', cep: '78005100', tipo_instalacao: 'Posto revendedor',
    }),
  },
  {
    tipo: 'TRR',
    meta: {},
    linhas: (n) => ({ trr: n }),
    gerar: (_s, i, alterada) => ({
      cnpj: cnpj(i), razao_social: `TRR ${i} Ltda`, municipio: 'Sinop', uf: 'MT', tipo_instalacao: null, qualificacao_empresa: 'TRR',
      capacidade_m3: alterada ? '99' : '45.5',
    }),
  },
  {
    tipo: 'COMPRAS',
    meta: {},
    linhas: (n) => ({ compra: n }),
    // one row in 20 is not a fuel (filtered out and counted)
    gerar: (_s, i, alterada) => ({
      data: diaDe(i % 90), cnpj_fornecedor: cnpj(i % 300), fornecedor: `Fornecedor ${i % 300}`, nota_fiscal: String(100000 + i),
      produto: i % 2 ? 'Diesel S10' : 'Gasolina C', codigo_onu: i % 20 === 7 ? '1830' : i % 2 ? '1202' : '1203', quantidade: '5000',
      valor_total: alterada ? '1.5' : '29500.5',
    }),
  },
  {
    tipo: 'COTA_FORNECEDOR',
    meta: {},
    linhas: (n) => ({ cota: n }),
    gerar: (_s, i, alterada) => {
      const j = Math.floor(i / 12);
      return { aba: String(2000 + Math.floor(j / 5000)), polo: `Polo ${Math.floor(j / 50) % 100}`, produto: `Produto ${j % 50}`, mes: String(1 + (i % 12)), quantidade: alterada ? '1' : '100' };
    },
  },
  {
    tipo: 'FLUXO_PAGAR_RECEBER',
    meta: { posicao: '2026-11-15', total_receber_grupo: null, grupo_problema: 'bench' },
    linhas: (n) => ({ titulo: n }),
    gerar: (_s, i, alterada) => ({
      tipo: i % 2 ? 'PAGAR' : 'RECEBER', documento: `D${i}`, parcela: '1', pessoa: `Pessoa ${i % 1000}`, cnpj_cpf: cnpj(i % 1000),
      emissao: '2026-10-01', vencimento: diaDe(i % 120), valor: '100', saldo: alterada ? '1' : '100', centro_custo: `CC${i % 30}`,
      descricao_centro_custo: `Centro ${i % 30}`,
    }),
  },
];
