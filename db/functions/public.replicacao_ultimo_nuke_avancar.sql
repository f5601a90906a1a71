CREATE OR REPLACE FUNCTION public.replicacao_ultimo_nuke_avancar()
 RETURNS text
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  v_antigo timestamptz;
  v_novo timestamptz;
  v_texto text;
begin
  select valor::timestamptz into v_antigo from public.bi_configuracao where chave = 'ultimo_nuke' for update;
  -- only grows: a clock behind the stored value still moves it forward by a millisecond
  v_novo := greatest(date_trunc('milliseconds', clock_timestamp()),
                     coalesce(v_antigo, '-infinity'::timestamptz) + interval '1 millisecond');
  v_texto := to_char(v_novo at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
  insert into public.bi_configuracao (chave, valor, tipo, sistema, descricao)
  values ('ultimo_nuke', v_texto, 'string', true,
          'Instante (UTC, ISO-8601) do último reset da replicação. Só cresce; clientes que veem um valor novo limpam os dados locais e sincronizam do zero.')
  on conflict (chave) do update set valor = excluded.valor;
  return v_texto;
end;
$function$
;

comment on function public.replicacao_ultimo_nuke_avancar() is 'Advances bi_configuracao.ultimo_nuke (UTC ISO-8601 instant, never goes back) and so NOTIFYs app_config: clients that see a new value clear their local data and sync from zero. The FINALIZAR step of a reset; callable from psql to finish a reset by hand (docs/replicacao.md). Returns the new value.';
