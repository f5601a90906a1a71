// @bench-tiny 300 --chunk 100
// @bench-prints proposta+hash
/**
 * `npm run bench -- merge-prototipo [200000] [--chunk 25000] [--explain]`: the measurement behind the proposal
 * of docs/medicoes.md ("Where the time goes"): the billing rows of a RELATORIO18 (bi_faturamento,
 * the table that takes 90 % of the rows) merged chunk by chunk in three ways, on the same rows
 * and the same throwaway server, each in a transaction of its own:
 *   atual          the statements the declarative merge generates today for bi_faturamento,
 *                  copied here as generated (normalise into xls_chunk_, reject, settle repeated
 *                  keys, diff into xls_dif_ with one index probe per row, insert the new keys,
 *                  upsert the changed, keep the accepted rows, hash the keys), without the hook;
 *   atual ajustado the same statements with two fixes (see atual()): no merge join on the never
 *                  analysed work tables, the INSERT's key order sorted in the "C" collation;
 *   proposta       one statement per chunk: the staging normalised, rejected and settled once
 *                  (CTEs, no work table), one probe per row, INSERT of the new and UPDATE by id of
 *                  the changed rows, the accepted rows and key hashes collected in the same pass;
 *   proposta+hash  the same, comparing a stored row hash instead of the eight columns: the hash of
 *                  the row's COPY text computed by the edge while it writes the chunk (staging
 *                  column h, added here), kept in bi_faturamento.xls_hash (added to this throwaway
 *                  database only, with an index on the natural key INCLUDE (id, xls_hash) so the
 *                  probe can read the index alone).
 *   hash, só chaves the same, but the keys alone are normalised first: a row whose key is stored
 *                  with the same hash (and is not repeated in the chunk) is settled by one probe
 *                  (its key and scope column kept for the end, not its other columns: the hook
 *                  would skip it), and only the other rows are normalised whole.
 * Scenarios: first import into an empty table (rolled back), identical re-import and 1 % changed
 * (the table loaded once, each run rolled back). Prints per way and scenario the CPU seconds of
 * the backend for the merge statements (COPY excluded: the same for all), their wall time, rows
 * written and WAL; and checks that every way leaves the same rows (it fails otherwise).
 */
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { startTestCluster, prepareDatabases, recreateDatabase, TEMPLATE_DB } from '../test/harness/cluster.js';
import { GERADORES } from './xls-merge-tipos.js';
import { processCpu } from './profile.js';

const ROWS = /^\d+$/.test(process.argv[2] ?? '') ? Number(process.argv[2]) : 200_000;
const CHUNK = process.argv.includes('--chunk') ? Number(process.argv[process.argv.indexOf('--chunk') + 1]) : 25_000;
const g = GERADORES.find((x) => x.tipo === 'RELATORIO18')!;
const EXPLAIN = process.argv.includes('--explain');

const KEY = ['filial', 'nota_fiscal', 'serie', 'item'];
const CMP = ['emissao', 'cliente', 'vendedor', 'produto', 'quantidade', 'valor_unitario', 'valor_total', 'placa'];
const WRITTEN = [...KEY, ...CMP];
const ACEITAS = ['linha', 'cliente', 'descricao_produto', 'emissao', 'filial', 'item', 'nome_cliente', 'nome_vendedor', 'nota_fiscal', 'produto', 'serie', 'vendedor'];
const list = (cols: string[], p = '') => cols.map((c) => `${p}${c}`).join(', ');
const onKey = (a: string, b: string) => KEY.map((k) => `${a}.${k} = ${b}.${k}`).join(' and ');

/** The normalised chunk, as app.xls_merge_preparar generates it for bi_faturamento today. */
const SELECT = `select s.linha, left((filial)::text, 20)::character varying(20) as filial, left((nota_fiscal)::text, 20)::character varying(20) as nota_fiscal, left((coalesce(serie, ''))::text, 5)::character varying(5) as serie, left((coalesce(item, ''))::text, 10)::character varying(10) as item, (emissao)::date as emissao, left((cliente)::text, 20)::character varying(20) as cliente, left((vendedor)::text, 20)::character varying(20) as vendedor, left((produto)::text, 20)::character varying(20) as produto, (quantidade)::numeric as quantidade, (valor_unitario)::numeric as valor_unitario, (valor_total)::numeric as valor_total, left((upper(regexp_replace(placa, '[-[:space:]]', '', 'g')))::text, 10)::character varying(10) as placa, nome_cliente as nome_cliente, modelo_veiculo as modelo_veiculo, descricao_produto as descricao_produto, ano_veiculo as ano_veiculo, nome_vendedor as nome_vendedor, placa as placa_bruta from (select linha, nullif(btrim(filial), '') as filial, nullif(btrim(nota_fiscal), '') as nota_fiscal, nullif(btrim(serie), '') as serie, nullif(btrim(item), '') as item, emissao, nullif(btrim(cliente), '') as cliente, nullif(btrim(nome_cliente), '') as nome_cliente, nullif(btrim(vendedor), '') as vendedor, nullif(btrim(nome_vendedor), '') as nome_vendedor, nullif(btrim(produto), '') as produto, nullif(btrim(descricao_produto), '') as descricao_produto, quantidade, valor_unitario, valor_total, nullif(btrim(placa), '') as placa, nullif(btrim(ano_veiculo), '') as ano_veiculo, nullif(btrim(modelo_veiculo), '') as modelo_veiculo from pg_temp.xls_stg_faturamento) s`;
const REQUIRED = ['filial', 'nota_fiscal', 'serie', 'item', 'emissao'];
const NEW_ID = `($1 || lpad(to_hex(nextval('public.xls_id_seq')), 15, '0'))::uuid`;
/** The key columns normalised as SELECT does. */
const KEY_EXPR: Record<string, string> = {
  filial: "left((nullif(btrim(s.filial), ''))::text, 20)::character varying(20)",
  nota_fiscal: "left((nullif(btrim(s.nota_fiscal), ''))::text, 20)::character varying(20)",
  serie: "left((coalesce(nullif(btrim(s.serie), ''), ''))::text, 5)::character varying(5)",
  item: "left((coalesce(nullif(btrim(s.item), ''), ''))::text, 10)::character varying(10)",
};
/** The normalised chunk with the edge's row hash carried along. */
const SELECT_H = SELECT.replace('select s.linha,', 'select s.linha, s.h,').replace('from (select linha,', 'from (select linha, h,');

/**
 * Today's statements, in the order app.xls_merge_chunk runs them (hook calls left out).
 * `ajustado`: the same with the two fixes the plans call for, without ANALYZE (measured: analysing
 * the two work tables at every chunk costs more than it saves): merge joins off for the merge
 * (the work tables are never analysed, the planner expects a quarter of their rows and sorts
 * 25,000 rows twice for a merge join where a hash join fits; the function would carry
 * `SET enable_mergejoin TO off` as it carries work_mem), and the key order of the INSERT sorted
 * in the "C" collation (memcmp, abbreviated keys) instead of the database's.
 */
function atual(ajustado = false): string[] {
  return [
    ...(ajustado ? ['set local enable_mergejoin = off'] : []),
    'truncate pg_temp.xls_chunk_faturamento',
    `insert into pg_temp.xls_chunk_faturamento ${SELECT}`,
    'truncate pg_temp.xls_stg_faturamento',
    `with r as (delete from pg_temp.xls_chunk_faturamento c where ${REQUIRED.map((c) => `c.${c} is null`).join(' or ')}
       returning c.linha, (${KEY.map((c) => `c.${c} is not null`).join(' and ')}) as legivel, ${list(KEY, 'c.')})
     , p as (insert into pg_temp.xls_protegidas_faturamento select ${list(KEY, 'r.')} from r where r.legivel)
     insert into pg_temp.xls_ocorrencia select 'rejeitada', '20', r.linha, null, 'faturamento', r.legivel from r`,
    `with dup as (select ${list(KEY)} from pg_temp.xls_chunk_faturamento group by ${list(KEY)} having count(*) > 1),
     d as (delete from pg_temp.xls_chunk_faturamento c
            using (select s.ctid, row_number() over (partition by ${list(KEY, 's.')} order by s.linha desc, s.ctid desc) as rn
                     from pg_temp.xls_chunk_faturamento s join dup t on ${onKey('t', 's')}) x
            where c.ctid = x.ctid and x.rn > 1 returning c.linha)
     insert into pg_temp.xls_ocorrencia select 'duplicada', '20', d.linha, null, 'faturamento', true from d`,
    'truncate pg_temp.xls_dif_faturamento',
    `insert into pg_temp.xls_dif_faturamento
     select ${list(WRITTEN, 's.')}, t.id is null from pg_temp.xls_chunk_faturamento s
       left join lateral (select t.id, ${list(CMP, 't.')} from bi_faturamento t where ${onKey('t', 's')} limit 1) t on true
      where t.id is null or (${list(CMP, 't.')}) is distinct from (${list(CMP, 's.')})`,
    `insert into bi_faturamento (id, ${list(WRITTEN)})
     select ${NEW_ID}, o.* from (select ${list(WRITTEN)} from pg_temp.xls_dif_faturamento s where s.novo order by ${KEY.map((k) => `${k}${ajustado ? ' collate "C"' : ''}`).join(', ')}) o`,
    `insert into bi_faturamento as t (${list(WRITTEN)})
     select ${list(WRITTEN)} from pg_temp.xls_dif_faturamento s where not s.novo order by ${list(KEY)}
     on conflict (${list(KEY)}) do update set ${CMP.map((c) => `${c} = excluded.${c}`).join(', ')}
      where (${list(CMP, 't.')}, null) is distinct from (${list(CMP, 'excluded.')}, null)`,
    `insert into pg_temp.xls_aceitas_faturamento (${list(ACEITAS)}, gravada)
     select ${list(ACEITAS, 'c.')}, d.novo is not null from pg_temp.xls_chunk_faturamento c left join pg_temp.xls_dif_faturamento d on ${onKey('d', 'c')}`,
    `insert into pg_temp.xls_hash_faturamento select hashtextextended(concat_ws(chr(31), ${KEY.map((k) => `c.${k}::text`).join(', ')}), 0) from pg_temp.xls_chunk_faturamento c`,
  ];
}

/**
 * The proposal: one statement per chunk and target. `hash`: compare the stored row hash instead
 * of the columns (and keep it up to date in the same statement).
 */
function proposta(hash: boolean, soChaves = false): string[] {
  const probeCols = hash ? 't.xls_hash' : list(CMP, 't.');
  const changed = hash ? `t.xls_hash is distinct from k.h` : `(${list(CMP, 't.')}) is distinct from (${list(CMP, 'k.')})`;
  const ok = REQUIRED.map((x) => `c.${x} is not null`).join(' and ');
  // soChaves: the keys alone are normalised first; a row whose key is stored with the same hash
  // (and not repeated in the chunk) is settled there (its key and scope column kept for the end)
  // and only the other rows are normalised whole
  const igual = soChaves ? `k0 as (select s.linha, s.h, s.emissao, ${KEY.map((k) => `${KEY_EXPR[k]} as ${k}`).join(', ')} from pg_temp.xls_stg_faturamento s),
     dupk0 as (select ${list(KEY)} from k0 group by ${list(KEY)} having count(*) > 1),
     igual as (select k0.* from k0 join lateral (select t.xls_hash from bi_faturamento t where ${onKey('t', 'k0')} limit 1) t on t.xls_hash = k0.h
                where k0.emissao is not null and not exists (select from dupk0 where ${onKey('dupk0', 'k0')})),
     aig as (insert into pg_temp.xls_aceitas_faturamento (linha, ${list(KEY)}, emissao, gravada) select linha, ${list(KEY)}, emissao, false from igual),
     hig as (insert into pg_temp.xls_hash_faturamento select hashtextextended(concat_ws(chr(31), ${KEY.map((x) => `igual.${x}::text`).join(', ')}), 0) from igual),
     ` : '';
  return [
    `with ${igual}c as (${soChaves ? `select * from (${SELECT_H}) c0 where not exists (select from igual where igual.linha = c0.linha)` : hash ? SELECT_H : SELECT}),
     rej as (insert into pg_temp.xls_ocorrencia select 'rejeitada', '20', c.linha, null, 'faturamento', (${KEY.map((k) => `c.${k} is not null`).join(' and ')})
              from c where ${REQUIRED.map((x) => `c.${x} is null`).join(' or ')}),
     prot as (insert into pg_temp.xls_protegidas_faturamento select ${list(KEY, 'c.')} from c
               where (${REQUIRED.map((x) => `c.${x} is null`).join(' or ')}) and ${KEY.map((k) => `c.${k} is not null`).join(' and ')}),
     dupk as (select ${list(KEY)} from c where ${ok} group by ${list(KEY)} having count(*) > 1),
     k as (select c.* from c where ${ok} and not exists (select from dupk where ${onKey('dupk', 'c')})
           union all
           select * from (select distinct on (${list(KEY, 'c.')}) c.* from c join dupk on ${onKey('dupk', 'c')} where ${ok} order by ${list(KEY, 'c.')}, c.linha desc) u),
     dup as (insert into pg_temp.xls_ocorrencia select 'duplicada', '20', x.linha, null, 'faturamento', true
              from (select c.linha from c join dupk on ${onKey('dupk', 'c')} where ${ok} except select k.linha from k join dupk on ${onKey('dupk', 'k')}) x),
     d as (select k.*, t.id as tid, t.id is null as novo, t.id is not null and ${changed} as mudou
             from k left join lateral (select t.id, ${probeCols} from bi_faturamento t where ${onKey('t', 'k')} limit 1) t on true),
     ins as (insert into bi_faturamento (id, ${list(WRITTEN)}${hash ? ', xls_hash' : ''})
             select ${NEW_ID}, ${list(WRITTEN, 'd.')}${hash ? ', d.h' : ''} from d where d.novo order by ${list(KEY, 'd.')} returning 1),
     upd as (update bi_faturamento t set ${CMP.map((c) => `${c} = d.${c}`).join(', ')}${hash ? ', xls_hash = d.h' : ''}
               from d where d.mudou and t.id = d.tid returning 1),
     hs as (insert into pg_temp.xls_hash_faturamento select hashtextextended(concat_ws(chr(31), ${KEY.map((x) => `d.${x}::text`).join(', ')}), 0) from d)
     insert into pg_temp.xls_aceitas_faturamento (${list(ACEITAS)}, gravada)
     select ${list(ACEITAS, 'd.')}, d.novo or d.mudou from d`,
    'truncate pg_temp.xls_stg_faturamento',
  ];
}

/**
 * A 53-bit hash of a string (two 32-bit multiply-xorshift lanes, as cyrb53): cheap enough to run
 * on every row in the reader's thread (a crypto hash object per row costs microseconds).
 */
export function hash53(s: string, from = 0, to = s.length): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = from; i < to; i++) {
    const ch = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** The chunk's COPY lines, and the same lines with the row hash the edge would add (`h`: hash53 of the line's fields after linha). */
function rows(n: number, alterada: (i: number) => boolean): { linhas: string[]; comHash: string[]; hashMs: number } {
  const linhas = Array.from({ length: n }, (_, i) => {
    const r = g.gerar('faturamento', i, alterada(i));
    return [String(i + 2), ...COLUNAS.slice(1).map((c) => r[c] ?? '\\N')].join('\t') + '\n';
  });
  const t0 = process.cpuUsage();
  const comHash = linhas.map((l) => {
    const tab = l.indexOf('\t');
    return `${l.slice(0, -1)}\t${hash53(l, tab + 1, l.length - 1)}\n`;
  });
  const cpu = process.cpuUsage(t0);
  return { linhas, comHash, hashMs: (cpu.user + cpu.system) / 1000 };
}
let COLUNAS: string[] = [];

async function copy(c: pg.PoolClient, lines: string[], hash: boolean): Promise<void> {
  await pipeline(Readable.from([lines.join('')]), c.query(copyFrom(`copy pg_temp.xls_stg_faturamento (${list(COLUNAS)}${hash ? ', h' : ''}) from stdin`)));
}

type Forma = 'atual' | 'atual ajustado' | 'proposta' | 'proposta+hash' | 'hash, só chaves';
interface Resultado { cpu: number; ms: number; wal: number; escritas: number; soma: string }

async function merge(pool: pg.Pool, forma: Forma, dados: ReturnType<typeof rows>, commit = false): Promise<Resultado> {
  const comHash = forma === 'proposta+hash' || forma === 'hash, só chaves';
  const linhas = comHash ? dados.comHash : dados.linhas;
  const c = await pool.connect();
  try {
    const pid = (await c.query('select pg_backend_pid() as p')).rows[0].p as number;
    await c.query('begin');
    await c.query(`select * from xls_staging_preparar('RELATORIO18')`);
    await c.query(`set local work_mem = '64MB'`); // as app.xls_merge_chunk sets it
    if (comHash) await c.query('alter table pg_temp.xls_stg_faturamento add column h bigint');
    await c.query(`create temp table xls_chunk_faturamento on commit drop as ${SELECT} limit 0`);
    await c.query(`create temp table xls_dif_faturamento on commit drop as select ${list(WRITTEN)}, true as novo from pg_temp.xls_chunk_faturamento limit 0`);
    await c.query(`create temp table xls_aceitas_faturamento on commit drop as select ${list(ACEITAS)}, true as gravada from pg_temp.xls_chunk_faturamento limit 0`);
    await c.query('create temp table xls_hash_faturamento (h bigint) on commit drop');
    await c.query(`create temp table xls_protegidas_faturamento on commit drop as select ${list(KEY)} from pg_temp.xls_chunk_faturamento limit 0`);
    await c.query('create temp table xls_ocorrencia (tipo text, aba text, linha integer, campo text, staging text, chave_legivel boolean) on commit drop');
    const stmts = forma === 'atual' ? atual() : forma === 'atual ajustado' ? atual(true) : proposta(forma !== 'proposta', forma === 'hash, só chaves');
    const prefixo = (await c.query(`select lpad(to_hex((extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0') || '70008' as p`)).rows[0].p as string;
    const lsn = (await c.query('select pg_current_wal_insert_lsn()::text l')).rows[0].l as string;
    let cpu = 0;
    let ms = 0;
    for (let i = 0; i < linhas.length; i += CHUNK) {
      await copy(c, linhas.slice(i, i + CHUNK), comHash);
      const c0 = processCpu(pid);
      const t0 = performance.now();
      const ultimo = i + CHUNK >= linhas.length;
      for (const s of stmts) {
        // --explain: the plans of the last chunk of each way (EXPLAIN ANALYZE runs the statement)
        if (EXPLAIN && ultimo && /^\s*(with|insert|update)/.test(s)) {
          const plan = (await c.query(`explain (analyze, buffers, costs off) ${s}`, s.includes('$1') ? [prefixo] : [])).rows.map((r) => r['QUERY PLAN']).join('\n');
          console.log(`--- ${forma}: ${s.replace(/\s+/g, ' ').slice(0, 100)}\n${plan}`);
        } else {
          await c.query(s, s.includes('$1') ? [prefixo] : []);
        }
      }
      ms += performance.now() - t0;
      cpu += processCpu(pid) - c0;
    }
    const wal = Number((await c.query('select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint n', [lsn])).rows[0].n);
    const escritas = Number((await c.query('select count(*) filter (where gravada) n from pg_temp.xls_aceitas_faturamento')).rows[0].n);
    // the same end state whatever the way: a digest of every written column of the table
    const soma = (await c.query(`select md5(string_agg(row(${list(WRITTEN)})::text, '|' order by ${list(KEY)})) s from bi_faturamento`)).rows[0].s as string;
    await c.query(commit ? 'commit' : 'rollback');
    return { cpu, ms, wal, escritas, soma };
  } finally {
    c.release();
  }
}

async function main(): Promise<void> {
  const cluster = await startTestCluster();
  try {
    await prepareDatabases(cluster);
    await recreateDatabase(cluster.adminUrl, 'bench_prototipo', TEMPLATE_DB);
    const pool = new pg.Pool({ connectionString: cluster.urlFor('bench_prototipo'), max: 2 });
    pool.on('error', () => undefined);
    // prototype only, in this throwaway database: the stored row hash and a covering key index
    await pool.query(`alter table bi_faturamento add column xls_hash bigint;
      create unique index bi_faturamento_chave_hash on bi_faturamento (${list(KEY)}) include (id, xls_hash)`);
    const c = await pool.connect();
    await c.query('begin');
    const tabelas = (await c.query(`select * from xls_staging_preparar('RELATORIO18')`)).rows as Array<{ staging: string; colunas: string[] }>;
    COLUNAS = tabelas.find((t) => t.staging === 'faturamento')!.colunas;
    await c.query('rollback');
    c.release();
    const formas: Forma[] = ['atual', 'atual ajustado', 'proposta', 'proposta+hash', 'hash, só chaves'];
    const base = rows(ROWS, () => false);
    const umPct = rows(ROWS, (i) => i % 100 === 0);
    console.log(`bi_faturamento: ${ROWS} linhas em chunks de ${CHUNK}; CPU = do backend nos comandos do merge (COPY fora); `
      + `hash das linhas no Node (hash53 de cada linha COPY): ${base.hashMs.toFixed(0)} ms de CPU`);
    const out: Array<[string, string, Resultado]> = [];
    for (const f of formas) out.push(['primeira importação', f, await merge(pool, f, base)]);
    await merge(pool, 'proposta+hash', base, true); // the loaded table, with its hashes
    await pool.query('vacuum analyze bi_faturamento');
    for (const f of formas) out.push(['reimportação idêntica', f, await merge(pool, f, base)]);
    for (const f of formas) out.push(['1% alterado', f, await merge(pool, f, umPct)]);
    for (const [cenario, f, r] of out) {
      console.log(`${cenario.padEnd(24)} ${f.padEnd(15)} CPU ${r.cpu.toFixed(2).padStart(6)} s   ${(r.ms / 1000).toFixed(2).padStart(6)} s   escritas ${String(r.escritas).padStart(7)}   WAL ${(r.wal / 1048576).toFixed(1).padStart(6)} MB`);
    }
    for (const cenario of new Set(out.map((o) => o[0]))) {
      const somas = new Set(out.filter((o) => o[0] === cenario).map((o) => `${o[2].soma}/${o[2].escritas}`));
      if (somas.size !== 1) throw new Error(`${cenario}: as formas deixaram tabelas diferentes (${[...somas].join(', ')})`);
    }
    await pool.end();
  } finally {
    await cluster.stop();
  }
}

void main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
