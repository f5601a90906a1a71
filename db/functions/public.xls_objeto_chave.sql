-- the signature before p_extensao (the format's extension of the object key)
drop function if exists public.xls_objeto_chave(text,timestamp with time zone);

CREATE OR REPLACE FUNCTION public.xls_objeto_chave(p_checksum text, p_em timestamp with time zone DEFAULT now(), p_extensao text DEFAULT 'xlsx'::text)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select to_char(p_em at time zone 'America/Sao_Paulo', 'YYYY/MM') || '/' || lower(p_checksum) || '.'
      || case when lower(p_extensao) in ('xlsx', 'xls', 'ods', 'xlsb') then lower(p_extensao) else 'xlsx' end;
$function$
;

comment on function public.xls_objeto_chave(text,timestamp with time zone,text) is 'Object-store key of a file: <yyyy>/<mm>/<checksum>.<extensao> (xlsx, xls, ods or xlsb: the format read from its content at receipt; anything else xlsx), month of p_em in America/Sao_Paulo (content-addressed: the same file always gets the same key within a month).';
