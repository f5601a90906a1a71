CREATE OR REPLACE FUNCTION public.partner_puxada_pagina(p_id bigint, p_pedidos jsonb, p_agora timestamp with time zone DEFAULT clock_timestamp())
 RETURNS jsonb
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_motivo text;
  v_pedido jsonb;
  v_res text;
  v_cont jsonb := jsonb_build_object('criado', 0, 'atualizado', 0, 'obsoleto', 0, 'repetido', 0, 'invalido', 0);
  v_erro text;
begin
  select motivo into v_motivo from public.partner_puxada where id = p_id for update;
  if not found then
    raise exception 'puxada % não existe', p_id using errcode = 'PW404';
  end if;
  if p_pedidos is null or jsonb_typeof(p_pedidos) <> 'array' then
    raise exception 'a página de pedidos não é uma lista' using errcode = 'PW422';
  end if;
  for v_pedido in select value from jsonb_array_elements(p_pedidos) loop
    begin
      v_res := public.partner_pedido_observar(v_pedido, v_motivo, null, null, p_agora);
    exception when sqlstate 'PW422' then
      v_res := 'invalido';
      v_erro := left(sqlerrm, 500);
    end;
    v_cont := jsonb_set(v_cont, array[v_res], to_jsonb((v_cont ->> v_res)::integer + 1));
  end loop;
  update public.partner_puxada set
    paginas = paginas + 1,
    pedidos = pedidos + jsonb_array_length(p_pedidos),
    criados = criados + (v_cont ->> 'criado')::integer,
    atualizados = atualizados + (v_cont ->> 'atualizado')::integer,
    obsoletos = obsoletos + (v_cont ->> 'obsoleto')::integer,
    repetidos = repetidos + (v_cont ->> 'repetido')::integer,
    invalidos = invalidos + (v_cont ->> 'invalido')::integer,
    erro = coalesce('pedido inválido ignorado: ' || v_erro, erro)
  where id = p_id;
  return v_cont;
end;
$function$
;

comment on function public.partner_puxada_pagina(bigint,jsonb,timestamp with time zone) is 'Normalises one page of orders of a pull through partner_pedido_observar (origem = the pull''s motivo). An order it cannot read is counted as invalido (its reason kept in erro) and does not stop the page. Returns the counts of the page.';
