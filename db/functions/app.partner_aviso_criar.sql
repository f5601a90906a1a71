CREATE OR REPLACE FUNCTION app.partner_aviso_criar(p_tipo text, p_episodio bigint, p_contingencia bigint, p_dados jsonb, p_agora timestamp with time zone)
 RETURNS bigint
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_id bigint;
begin
  insert into public.partner_aviso (tipo, episodio_id, contingencia_id, criado_em, dados)
  values (p_tipo, p_episodio, p_contingencia, p_agora, coalesce(p_dados, '{}'))
  returning id into v_id;
  if p_tipo in ('webhook_parado', 'webhook_voltou', 'conciliacao_incompleta') then
    insert into public.partner_aviso_envio (aviso_id, email)
    select distinct on (lower(d.email)) v_id, d.email
      from public.destinatario d where d.ativo
     order by lower(d.email), d.email;
  end if;
  perform app.enqueue('partner_aviso', jsonb_build_object('id', v_id), now(), 'aviso:' || v_id, 10);
  return v_id;
end;
$function$
;

comment on function app.partner_aviso_criar(text,bigint,bigint,jsonb,timestamp with time zone) is 'Records a notice, its e-mails (one per active recipient, for webhook_parado, webhook_voltou and conciliacao_incompleta) and enqueues the job that carries it out.';
