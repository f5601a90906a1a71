CREATE OR REPLACE FUNCTION app.xls_hook_fluxo(p_fase text, p_staging text, p_meta jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_posicao date;
  v_max date;
  v_atual boolean;
  v_saiu integer := 0;
  v_soma numeric;
  v_avisos jsonb := '[]';
  v_aviso text;
begin
  -- the position date (the reader found it in tab Fluxo Pagar-Receber), checked from phase inicio on (app.xls_data: null when not a date)
  v_posicao := app.xls_data(p_meta ->> 'posicao');
  if v_posicao is null then
    raise exception 'FLUXO_PAGAR_RECEBER recusado: data de posição ausente ou inválida (%)', coalesce(p_meta ->> 'posicao', 'ausente')
      using errcode = 'XL422';
  elsif p_fase <> 'fim' then
    return '{}';
  end if;

  -- rule 4, total refusal: app.xls_tipo.recusa_total (the merge raises before this phase)
  -- rule 2: only the newest position is current (under the merge lock on bi_titulo; the
  -- description's expression of atual compared with the same table)
  select max(t.posicao) into v_max from public.bi_titulo t where t.posicao <> v_posicao;
  v_atual := v_max is null or v_posicao >= v_max;
  -- rule 2: a newer position takes the flag from the older ones (the partial index serves this)
  if v_atual and v_max is not null and v_posicao > v_max then
    update public.bi_titulo t set atual = false where t.atual and t.posicao < v_posicao;
    get diagnostics v_saiu = row_count;
  elsif not v_atual then
    v_avisos := app.xls_aviso('posicao', format('posição %s anterior à atual (%s): entra no histórico sem se tornar a atual',
                                                to_char(v_posicao, 'DD/MM/YYYY'), to_char(v_max, 'DD/MM/YYYY')));
  end if;

  -- rule 5: the receivable sum of Saldo against the Total of tab Grupo
  select coalesce(sum(a.saldo), 0) into v_soma from pg_temp.xls_aceitas_titulo a where a.tipo = 'RECEBER';
  if not (p_meta ? 'total_receber_grupo') then
    v_aviso := 'aba Grupo ausente: o total a receber não foi conferido';
  elsif p_meta ->> 'total_receber_grupo' is null then
    v_aviso := coalesce(p_meta ->> 'grupo_problema', 'aba Grupo sem total') || ': o total a receber não foi conferido';
  elsif abs(v_soma - (p_meta ->> 'total_receber_grupo')::numeric) > 0.01 then
    v_aviso := format('total a receber difere da aba Grupo: soma do Saldo %s, Total da aba Grupo %s',
                      app.xls_brl(v_soma), app.xls_brl((p_meta ->> 'total_receber_grupo')::numeric));
  end if;

  return jsonb_build_object('avisos', v_avisos || coalesce(app.xls_aviso('total', v_aviso), '[]'), 'tabelas', jsonb_build_object(
    'fluxo', jsonb_build_object('posicao', v_posicao, 'atual', v_atual, 'deixaram_de_ser_atuais', v_saiu, 'soma_saldo_receber', v_soma)));
end;
$function$
;

comment on function app.xls_hook_fluxo(text,text,jsonb) is 'Hook of FLUXO_PAGAR_RECEBER in the declarative merge (its rules 1-5: docs/tipos.md, Rules per type, and docs/formatos.md). inicio: the position date of p_meta.posicao (missing or invalid: XL422, nothing written; the description''s expressions of posicao and atual read p_meta and bi_titulo under the merge lock, which serialises simultaneous imports). fim (after the merge''s total refusal, app.xls_tipo.recusa_total): a newer position takes atual from the older ones, an older one enters the history only (warning); the receivable sum of Saldo against p_meta.total_receber_grupo (more than 0,01 apart: warning naming both figures). tabelas.fluxo = {posicao, atual, deixaram_de_ser_atuais, soma_saldo_receber}.';
