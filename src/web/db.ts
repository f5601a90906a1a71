/**
 * Typed wrappers of the SQL functions behind the screens' login: sessions and pending logins
 * (db/functions/app.sessao_*, app.login_*). SQL decides; these pass parameters.
 */
import * as db from 'zapatos/db';

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
