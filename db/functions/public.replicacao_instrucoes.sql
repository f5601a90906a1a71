CREATE OR REPLACE FUNCTION public.replicacao_instrucoes(p_step text, p_estrategia text DEFAULT 'manual'::text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select case p_step
    when 'VALIDAR' then
      'Nada foi alterado: o motor de sincronização não foi parado. Corrija o que a mensagem de erro aponta '
      || '(variáveis REPLICATOR_*, conexão com o banco, API da plataforma de hospedagem) e inicie um novo reset.'
    when 'PAUSAR' then
      case when p_estrategia = 'hosting' then
        'A suspensão do serviço do motor na plataforma de hospedagem falhou. Abra o painel da plataforma e veja o estado '
        || 'do serviço: se ficou suspenso, retome-o (Resume) ou inicie um novo reset; se continua no ar, nada foi alterado. '
        || 'Confira a chave e o id do serviço (REPLICATOR_HOSTING_API_KEY, REPLICATOR_HOSTING_SERVICE_ID).'
      else
        'O pedido de parada manual não foi registrado. Nada foi alterado; inicie um novo reset.'
      end
    when 'AGUARDAR_PARADA' then
      'Um slot do motor continuou ativo além do limite: nada foi removido. Veja quem o segura com '
      || '"select * from replicacao_slots();" (active_pid) e pare o motor de sincronização '
      || '(painel da plataforma ou à mão). Depois inicie um novo reset. Se o motor ficou suspenso e você não vai '
      || 'refazer o reset agora, retome-o.'
    when 'RESET_SLOT' then
      'O motor está parado e parte dos slots pode já ter sido removida (veja "slots removidos"). Com o motor parado, '
      || 'inicie um novo reset (ele refaz tudo desde o começo). Para terminar à mão: '
      || '"select replicacao_slots_remover();", apague o docstore do motor, "select replicacao_publicacao_recriar();", '
      || 'retome o motor, confira que um slot ficou ativo ("select * from replicacao_slots();") e rode '
      || '"select replicacao_ultimo_nuke_avancar();".'
    when 'DROP_DOCSTORE' then
      'O slot já foi removido e o RESUME foi tentado (o motor volta a replicar do zero, mas o docstore antigo continua lá). '
      || 'Apague à mão o armazenamento do motor: no MongoDB, "db.dropDatabase()" no banco de REPLICATOR_DOCSTORE_URL; '
      || 'no Postgres, "drop schema <schema> cascade" (o schema da URL, padrão powersync). Depois inicie um novo reset, '
      || 'para que o motor recomece limpo e os aparelhos recebam o novo ultimo_nuke.'
    when 'RECRIAR_PUBLICACAO' then
      'O motor está parado, sem slot e sem docstore. Recrie a publicação com "select replicacao_publicacao_recriar();", '
      || 'retome o motor (painel da plataforma ou à mão), confira que um slot ficou ativo ("select * from replicacao_slots();") '
      || 'e rode "select replicacao_ultimo_nuke_avancar();" para os aparelhos sincronizarem do zero.'
    when 'RESUME' then
      'O motor continua parado. Retome-o à mão (painel da plataforma: Resume no serviço do motor, ou reinicie o processo), '
      || 'confira que um slot ficou ativo ("select * from replicacao_slots();") e rode '
      || '"select replicacao_ultimo_nuke_avancar();" para os aparelhos sincronizarem do zero.'
    when 'AGUARDAR_REPLICACAO' then
      'O motor foi retomado, mas nenhum slot ficou ativo dentro do limite. Veja os logs do motor na plataforma de hospedagem '
      || '(conexão com o banco, publicação, docstore). Quando um slot ficar ativo ("select * from replicacao_slots();"), '
      || 'rode "select replicacao_ultimo_nuke_avancar();".'
    when 'VERIFICAR_PARIDADE' then
      'A replicação foi refeita, mas o motor não terminou a cópia inicial ou não serve o mesmo que o Postgres dentro do limite '
      || '(veja as tabelas e os números na mensagem). ultimo_nuke NÃO foi avançado: nenhum aparelho foi mandado limpar os dados. '
      || 'Enquanto o motor não conclui a cópia, os aparelhos mantêm os dados que têm; uma cópia concluída, mesmo diferente do '
      || 'Postgres, os aparelhos conectados já recebem (sem limpar). '
      || 'Veja os logs do motor (erros de replicação, tabelas sem permissão de leitura) e a saúde da replicação na tela; '
      || 'confira de novo com "Conferir paridade" na tela Replicação. Quando o motor estiver completo, rode '
      || '"select replicacao_ultimo_nuke_avancar();", ou inicie um novo reset.'
    when 'FINALIZAR' then
      'A replicação já foi refeita; só o aviso aos aparelhos faltou. Rode "select replicacao_ultimo_nuke_avancar();".'
  end;
$function$
;

comment on function public.replicacao_instrucoes(text, text) is 'What to do by hand (pt-BR) after a reset failed in step p_step under the restart strategy p_estrategia (hosting | manual); shown by the reset detail (API and /admin screen). The runbook is docs/replicacao.md.';
