CREATE OR REPLACE FUNCTION app.xls_aviso_linha_avisos(p_limite integer DEFAULT NULL::integer)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select coalesce(jsonb_agg(jsonb_build_object('categoria', r.categoria, 'motivo', r.motivo, 'quantidade', r.n, 'linhas', r.linhas)
                            order by r.ordem), '[]')
    from (select m.ordem, m.categoria, m.motivo, count(*) as n,
                 coalesce(jsonb_agg(jsonb_build_object('aba', m.aba, 'linha', m.linha, 'valor', m.valor) order by m.aba, m.linha)
                            filter (where p_limite is null or m.rn <= p_limite), '[]') as linhas
            from (select x.*, row_number() over (partition by x.ordem order by x.aba, x.linha) as rn
                    from pg_temp.xls_aviso_linha x) m
           group by m.ordem, m.categoria, m.motivo) r;
$function$
;

comment on function app.xls_aviso_linha_avisos(integer) is 'Internal, for hooks (phase fim): the warnings of pg_temp.xls_aviso_linha (app.xls_aviso_linha_criar), one per (ordem, categoria, motivo) in ordem, each {categoria, motivo, quantidade, linhas: [{aba, linha, valor}] by tab and row, at most p_limite of them (null: all)}; [] when the hook warned about nothing.';
