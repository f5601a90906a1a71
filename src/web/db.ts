/**
 * Typed wrappers of the SQL functions behind the staff screens: sessions, pending logins,
 * configuration CRUD and alert recipients (db/functions/app.sessao_*, app.login_*,
 * public.configuracao_*, public.destinatario_*). SQL decides; these pass parameters.
 */
import * as db from 'zapatos/db';
import type * as s from 'zapatos/schema';

export interface Sessao {
  id: string;
  email: string;
  nome: string | null;
  papel: 'equipe' | 'smoke';
  csrf: string;
  expira_em: Date;
}

export async function sessaoCriar(q: db.Queryable, o: {
  token: string; email: string; nome: string | null; papel: 'equipe' | 'smoke'; duracaoHoras: number; csrf: string; anterior: string | null;
}): Promise<Sessao> {
  const { rows } = await q.query<Sessao>(
    `select id, email, nome, papel, csrf, expira_em from app.sessao_criar($1, $2, $3, $4, make_interval(hours => $5), $6, $7)`,
    [o.token, o.email, o.nome, o.papel, o.duracaoHoras, o.csrf, o.anterior],
  );
  return rows[0]!;
}

export async function sessaoValidar(q: db.Queryable, token: string): Promise<Sessao | null> {
  const { rows } = await q.query<Sessao>(
    'select id, email, nome, papel, csrf, expira_em from app.sessao_validar($1)', [token]);
  return rows[0] ?? null;
}

export async function sessaoEncerrar(q: db.Queryable, token: string): Promise<boolean> {
  const [r] = await db.sql<db.SQL, Array<{ ok: boolean }>>`select app.sessao_encerrar(${db.param(token)}) as ok`.run(q);
  return Boolean(r?.ok);
}

export async function loginIniciar(q: db.Queryable, o: { state: string; nonce: string; codeVerifier: string; destino: string }): Promise<void> {
  await db.sql`select app.login_iniciar(${db.param(o.state)}, ${db.param(o.nonce)}, ${db.param(o.codeVerifier)}, ${db.param(o.destino)})`.run(q);
}

export async function loginConsumir(q: db.Queryable, state: string): Promise<{ nonce: string; code_verifier: string; destino: string } | null> {
  const rows = await db.sql<db.SQL, Array<{ nonce: string; code_verifier: string; destino: string }>>`
    select nonce, code_verifier, destino from app.login_consumir(${db.param(state)})`.run(q);
  return rows[0] ?? null;
}

export async function configuracaoCriar(q: db.Queryable, o: { chave: string; valor: string; tipo: string; descricao: string | null }): Promise<s.bi_configuracao.JSONSelectable> {
  const [row] = await db.sql<s.bi_configuracao.SQL, s.bi_configuracao.JSONSelectable[]>`
    select * from public.configuracao_criar(${db.param(o.chave)}, ${db.param(o.valor)}, ${db.param(o.tipo)}, ${db.param(o.descricao)})`.run(q);
  return row!;
}

export async function configuracaoRemover(q: db.Queryable, chave: string, versaoEsperada: string | null): Promise<void> {
  await db.sql`select public.configuracao_remover(${db.param(chave)}, ${db.param(versaoEsperada)}::timestamptz)`.run(q);
}

export async function destinatarioSalvar(q: db.Queryable, o: { id: string | null; email: string; nome: string | null; ativo: boolean; versaoEsperada: string | null }): Promise<s.destinatario.JSONSelectable> {
  const [row] = await db.sql<s.destinatario.SQL, s.destinatario.JSONSelectable[]>`
    select * from public.destinatario_salvar(${db.param(o.id)}::uuid, ${db.param(o.email)}, ${db.param(o.nome)}, ${db.param(o.ativo)}, ${db.param(o.versaoEsperada)}::timestamptz)`.run(q);
  return row!;
}

export async function destinatarioRemover(q: db.Queryable, id: string): Promise<void> {
  await db.sql`select public.destinatario_remover(${db.param(id)}::uuid)`.run(q);
}
