CREATE OR REPLACE FUNCTION app.xls_merge_chunk(p_tipo text, p_meta jsonb, p_final boolean DEFAULT false)
 RETURNS integer
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET work_mem TO '64MB'
AS $function$
-- One chunk of a declarative merge: for every target of the type (app.xls_alvo, in order),
-- the rows staged so far are normalised, rows without a required value set aside, a key
-- repeated in the chunk settled (the last row wins), foreign keys checked (XL424), and the
-- target written diff-aware (new keys inserted, changed rows upserted in key order); the
-- staging is emptied. The statements were generated once by app.xls_merge_preparar.
declare
  -- time-ordered ids for new rows: 48-bit ms timestamp, version 7, rand_a 0, variant 10, xls_id_seq
  v_id_prefixo text := lpad(to_hex((extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0') || '70008';
  e record;
  r record;
  v_n integer;
  v_total integer := 0;
  v_dif integer;
begin
  perform app.xls_staging_exigir(p_tipo);
  if to_regclass('pg_temp.xls_merge_estado') is null then
    perform app.xls_merge_preparar(p_tipo, p_meta);
  elsif exists (select from pg_temp.xls_merge_estado x where x.tipo <> p_tipo) then
    raise exception 'outro merge (%) em andamento nesta transação: chame xls_staging_preparar antes', (select x.tipo from pg_temp.xls_merge_estado x limit 1)
      using errcode = 'XL409';
  elsif exists (select from pg_temp.xls_merge_estado x where x.meta is distinct from coalesce(p_meta, '{}') - 'linhas_rejeitadas') then
    raise exception 'parâmetros % diferentes dos chunks anteriores deste merge (%)', coalesce(p_meta, '{}') - 'linhas_rejeitadas',
      (select x.meta from pg_temp.xls_merge_estado x limit 1) using errcode = 'XL409';
  end if;

  for e in select x.* from pg_temp.xls_merge_estado x where x.fonte is null order by x.ordem loop
    execute format('truncate pg_temp.%I', 'xls_chunk_' || e.staging);
    execute format('insert into pg_temp.%I %s', 'xls_chunk_' || e.staging, e.sql_select);
    get diagnostics v_n = row_count;
    if v_n = 0 then continue; end if;
    execute format('truncate pg_temp.%I', 'xls_stg_' || e.staging);
    perform app.xls_merge_hook(p_tipo, 'normalizado', e.staging, p_meta);
    if e.sql_rejeitar is not null then
      execute e.sql_rejeitar using e.aba, e.staging;
    end if;
    execute e.sql_dedup using e.aba, e.staging;
    perform app.xls_merge_hook(p_tipo, 'aceito', e.staging, p_meta);
    -- the reference tables the target's foreign keys need, from the chunk's accepted rows
    for r in select x.* from pg_temp.xls_merge_estado x where x.fonte = e.staging and x.quando = 'chunk' order by x.ordem loop
      execute format('truncate pg_temp.%I', 'xls_chunk_' || r.staging);
      execute format('insert into pg_temp.%I %s', 'xls_chunk_' || r.staging, r.sql_select);
      v_dif := app.xls_merge_gravar(r.staging, v_id_prefixo);
      update pg_temp.xls_merge_estado x set efetivas = x.efetivas + v_dif, chunks = x.chunks + 1 where x.staging = r.staging;
    end loop;
    v_dif := app.xls_merge_gravar(e.staging, v_id_prefixo);
    execute e.sql_aceitar;
    -- the reference tables written at the end: this chunk's candidates (one row per key)
    for r in select x.sql_cand from pg_temp.xls_merge_estado x where x.fonte = e.staging and x.quando = 'fim' order by x.ordem loop
      execute r.sql_cand;
    end loop;
    -- the hashes are needed only when another chunk of the target came or may come
    if not p_final or e.chunks > 0 then
      execute e.sql_hash;
    end if;
    update pg_temp.xls_merge_estado x set enviadas = x.enviadas + v_n, efetivas = x.efetivas + v_dif, chunks = x.chunks + 1
     where x.staging = e.staging;
    v_total := v_total + v_n;
  end loop;
  return v_total;
end;
$function$
;

comment on function app.xls_merge_chunk(text,jsonb,boolean) is 'Internal, one chunk of the declarative merge of a type (called by xls_merge_chunk while the edge reads, and by xls_merge for what is left): per target of app.xls_alvo, normalises the staged rows (trimmed, empty -> NULL, expressions, cut to the column length), sets aside rows with an empty NOT NULL column or a key longer than its column (xls_ocorrencia; a readable key stays protected from deletion), lets the last row of a key repeated in the chunk win, calls hook aceito, writes the reference tables the target refers to (app.xls_alvo.fonte, quando = chunk) from the accepted rows, checks the foreign keys (XL424 naming the missing codes and rows) and writes the target diff-aware (app.xls_merge_gravar) and keeps key, scope column and retained columns of the accepted rows (xls_aceitas_<staging>) for the end; the staging is emptied. The first call of a transaction prepares the merge (app.xls_merge_preparar); every chunk must carry the same parameters (else XL409). Returns the rows taken.';
