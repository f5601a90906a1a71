/**
 * Realistic data for the screens outside the processings (orders console, events to review,
 * configuration, recipients, replication resets), for the browser walk at 390 px and 1366 px.
 * The processing screens' data is popularTelas (dados-telas.ts). Long names and e-mails on
 * purpose: they are what overflows a phone.
 */
import type pg from 'pg';

export interface DadosGeral {
  /** a reset that failed at DROP_DOCSTORE (steps 1-4 done) */
  resetFalhou: string;
  /** a reset that ended SUCESSO (the ten steps) */
  resetSucesso: string;
  /** a recipient (its edit form) */
  destinatario: string;
  /** a reconciled day with recovered, missing (backfilled) and divergent orders (YYYY-MM-DD) */
  diaConciliado: string;
}

const PASSOS = ['VALIDAR', 'PAUSAR', 'AGUARDAR_PARADA', 'RESET_SLOT', 'DROP_DOCSTORE', 'RECRIAR_PUBLICACAO', 'RESUME', 'AGUARDAR_REPLICACAO', 'VERIFICAR_PARIDADE', 'FINALIZAR'];

export async function popularTelasGeral(db: { pool: pg.Pool }): Promise<DadosGeral> {
  const { pool } = db;
  await pool.query(`insert into partner_pedido (code, estado, status, total, pago_em, atualizado_no_parceiro, cliente_nome, recurso, origem, enfileirado_em, enfileirado_por, liberacao)
    values ('PED-2026-000981', 'CAPTURADO', 'received', 15230.75, now() - interval '2 hours', now() - interval '2 hours', 'Auto Posto Rodovia dos Bandeirantes Km 47 Ltda', '{}', 'webhook', null, null, null),
           ('PED-2026-000982', 'CAPTURADO', 'waiting_payment', 820, null, now() - interval '3 hours', 'Posto Central', '{}', 'webhook', null, null, null),
           ('PED-2026-000983', 'CAPTURADO', 'refused', 1200.5, null, now() - interval '5 hours', 'Transportadora Irmãos Siqueira & Filhos', '{}', 'poll', null, null, null),
           ('PED-2026-000970', 'ENFILEIRADO', 'invoiced', 9870.1, now() - interval '1 day', now() - interval '20 hours', 'Rede de Postos Sul Fluminense', '{}', 'webhook', now() - interval '20 hours', 'operacao.comercial.noturna@empresa.com.br', 'console'),
           ('PED-2026-000960', 'CANCELADO', 'cancelled', 450, null, now() - interval '2 days', 'Posto Sul', '{}', 'webhook', null, null, null)`);
  await pool.query(`insert into partner_webhook (recebido_em, corpo, situacao, resultado, detalhe, evento, code, processado_em)
    values (now() - interval '3 hours', convert_to('{"event":"order.paid"}', 'UTF8'), 'NORMALIZADO', 'atualizado', null, 'order.paid', 'PED-2026-000981', now() - interval '3 hours'),
           (now() - interval '4 hours', convert_to('{"event":"order.paid","resource":{"code":"PED-2026-000977","total":"R$ 1.234,56 (valor com vírgula que não é número)"', 'UTF8'), 'REVISAR', 'json_invalido', 'unexpected end of JSON input at position 98', null, null, now() - interval '4 hours'),
           (now() - interval '5 hours', convert_to('{"event":"order.refunded","resource":{"code":"PED-2026-000955"}}', 'UTF8'), 'REVISAR', 'evento_desconhecido', 'evento order.refunded não tratado', 'order.refunded', 'PED-2026-000955', now() - interval '5 hours')`);
  await pool.query(`insert into partner_episodio (silencio_desde, aberto_em, motivo, minutos_comerciais)
    values (now() - interval '3 hours', now() - interval '1 hour', 'limite_min_comercial', 120)`);
  await pool.query(`insert into destinatario (email, nome) values
    ('coordenacao.operacoes.comerciais.regionais@empresa.com.br', 'Coordenação de Operações Comerciais Regionais'),
    ('ti@empresa.com.br', 'TI'), ('plantao@empresa.com.br', null)`);
  await pool.query(`update destinatario set ativo = false where email = 'plantao@empresa.com.br'`);
  const { rows: [dest] } = await pool.query(`select id from destinatario where email = 'ti@empresa.com.br'`);
  // the reconciliation of two days: yesterday with every kind of line, the day before complete
  const dia = (n: number) => new Date(Date.now() - n * 86_400_000).toLocaleDateString('sv-SE', { timeZone: 'America/Sao_Paulo' });
  const pedidoDe = (code: string, status: string, d: string) => ({ code, status, updated_at: `${d}T15:00:00-03:00`, created_at: `${d}T10:00:00-03:00`,
    total: 1500.5, customer: { name: 'Auto Posto Rodovia dos Bandeirantes Km 47 Ltda', email: 'compras@posto.example', document: '12345678000195' }, items: [] });
  await pool.query(`select partner_conciliar($1::date, $2::jsonb)`, [dia(2), JSON.stringify([pedidoDe('PED-2026-000970', 'invoiced', dia(2))])]);
  await pool.query(`select partner_conciliar($1::date, $2::jsonb)`, [dia(1), JSON.stringify([
    pedidoDe('PED-2026-000981', 'received', dia(1)), pedidoDe('PED-2026-000982', 'received', dia(1)),
    pedidoDe('PED-2026-000983', 'refused', dia(1)), pedidoDe('PED-2026-000990', 'received', dia(1))])]);
  await pool.query(`select configuracao_criar('intervalo_sincronizacao', '5 minutos', 'duration', 'De quanto em quanto tempo os celulares da equipe de vendas sincronizam quando estão abertos')`);
  await pool.query(`select configuracao_criar('mostrar_metas_no_inicio', 'sim', 'boolean', 'Mostra as metas do mês na tela inicial do aplicativo')`);
  await pool.query(`select configuracao_criar('mensagem_manutencao', 'Sistema em manutenção programada das 22h às 23h de sábado; os pedidos continuam sendo recebidos normalmente.', 'string', null)`);

  const passar = async (id: string, passos: Array<[string, string, string]>) => {
    for (const [p, st, msg] of passos) {
      await pool.query(`select replicacao_passo($1, $2, 'EM_ANDAMENTO')`, [id, p]);
      await pool.query(`select replicacao_passo($1, $2, $3, $4)`, [id, p, st, msg]);
    }
  };
  const naoRodar = (id: string) => pool.query(`update app.job set status = 'done' where payload ->> 'id' = $1`, [id]);
  const { rows: [ok] } = await pool.query(`select id from replicacao_resetar('aparelhos da equipe do interior com metas divergentes do servidor depois da importação de outubro', 'tela:ana@empresa.com.br')`);
  await naoRodar(ok.id);
  await passar(ok.id, PASSOS.slice(0, 9).map((p) => [p, p === 'PAUSAR' || p === 'RESUME' || p === 'VERIFICAR_PARIDADE' ? 'AVISO' : p === 'AGUARDAR_REPLICACAO' ? 'PULADO' : 'SUCESSO',
    p === 'PAUSAR' ? 'reinício manual: pare o motor de sincronização agora' : p === 'RESUME' ? 'reinício manual: inicie o motor de sincronização agora'
      : p === 'VERIFICAR_PARIDADE' ? 'reinício manual: paridade não conferida (o motor ainda não criou seu armazenamento (schema powersync))'
      : p === 'RESET_SLOT' ? 'slot(s) removido(s): powersync_1_6b8f0c2a9d7e4f31' : 'ok'] as [string, string, string]));
  await pool.query(`select replicacao_passo($1, 'FINALIZAR', 'EM_ANDAMENTO')`, [ok.id]);
  await pool.query(`select replicacao_finalizar($1)`, [ok.id]);
  const { rows: [falhou] } = await pool.query(`select id from replicacao_resetar('teste de docstore', 'api')`);
  await naoRodar(falhou.id);
  await passar(falhou.id, [['VALIDAR', 'SUCESSO', 'ok'], ['PAUSAR', 'AVISO', 'reinício manual: pare o motor de sincronização agora'], ['AGUARDAR_PARADA', 'SUCESSO', 'ok'],
    ['RESET_SLOT', 'SUCESSO', 'slot(s) removido(s): powersync_1_0a1b2c3d'], ['DROP_DOCSTORE', 'ERRO', 'connect ECONNREFUSED 10.20.30.40:27017 (mongodb://docstore.interno:27017/powersync_producao)']]);
  await pool.query(`select replicacao_falhar($1, 'DROP_DOCSTORE: connect ECONNREFUSED 10.20.30.40:27017')`, [falhou.id]);
  return { resetFalhou: falhou.id, resetSucesso: ok.id, destinatario: dest.id, diaConciliado: dia(1) };
}
