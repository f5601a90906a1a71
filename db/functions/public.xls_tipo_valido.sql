CREATE OR REPLACE FUNCTION public.xls_tipo_valido(p_tipo text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select p_tipo in ('FLUXO_PAGAR_RECEBER', 'COMPRAS', 'RELATORIO18', 'COTA_FORNECEDOR', 'POSTOS', 'TRR',
                    'MARGEM_CONSOLIDADA', 'META_CARTEIRA', 'META', 'MARGEM_DIA');
$function$
;

comment on function public.xls_tipo_valido(text) is 'True when p_tipo is one of the spreadsheet types of formats.md (FLUXO_PAGAR_RECEBER, COMPRAS, RELATORIO18, COTA_FORNECEDOR, POSTOS, TRR, MARGEM_CONSOLIDADA, META_CARTEIRA, META, MARGEM_DIA).';
