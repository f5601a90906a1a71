CREATE OR REPLACE FUNCTION app.xls_aviso_linha_criar()
 RETURNS void
 LANGUAGE plpgsql
 VOLATILE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
begin
  create temp table xls_aviso_linha (ordem integer not null, categoria text not null, motivo text not null,
                                    aba text, linha integer, valor text) on commit drop;
end;
$function$
;

comment on function app.xls_aviso_linha_criar() is 'Internal, for hooks (phase inicio): creates pg_temp.xls_aviso_linha (ordem, categoria, motivo, aba, linha, valor), one row per sheet row a hook warns about; app.xls_aviso_linha_avisos turns it into the warnings of phase fim. Dropped at commit (and by xls_staging_preparar when a new merge starts in the transaction).';
