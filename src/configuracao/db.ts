/**
 * Typed wrappers of the configuration's SQL functions (public.configuracao_*: zapatos does
 * not type functions). The SQL function decides; these only pass parameters and shape results.
 */
import * as db from 'zapatos/db';
import type * as s from 'zapatos/schema';

export async function configuracaoDefinir(q: db.Queryable, chave: string, valor: string,
  versaoEsperada: string | null): Promise<s.bi_configuracao.JSONSelectable> {
  const [row] = await db.sql<s.bi_configuracao.SQL, s.bi_configuracao.JSONSelectable[]>`
    select * from public.configuracao_definir(${db.param(chave)}, ${db.param(valor)}, ${db.param(versaoEsperada)}::timestamptz)`.run(q);
  return row!;
}

export async function configuracaoCriar(q: db.Queryable, o: { chave: string; valor: string; tipo: string; descricao: string | null }): Promise<s.bi_configuracao.JSONSelectable> {
  const [row] = await db.sql<s.bi_configuracao.SQL, s.bi_configuracao.JSONSelectable[]>`
    select * from public.configuracao_criar(${db.param(o.chave)}, ${db.param(o.valor)}, ${db.param(o.tipo)}, ${db.param(o.descricao)})`.run(q);
  return row!;
}

export async function configuracaoRemover(q: db.Queryable, chave: string, versaoEsperada: string | null): Promise<void> {
  await db.sql`select public.configuracao_remover(${db.param(chave)}, ${db.param(versaoEsperada)}::timestamptz)`.run(q);
}
