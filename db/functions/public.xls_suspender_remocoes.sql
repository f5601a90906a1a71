CREATE OR REPLACE FUNCTION public.xls_suspender_remocoes(p_rejeitadas jsonb, p_aba text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
  select exists (select from jsonb_array_elements(coalesce(p_rejeitadas, '[]')) e
                  where e ->> 'aba' is null or e ->> 'aba' = p_aba or p_aba is null);
$function$
;

comment on function public.xls_suspender_remocoes(jsonb,text) is 'True when a rejected row could belong to tab p_aba (its aba is unknown or equal): its natural key is unknown, so deleting rows of the scope absent from the file could delete that row''s stored version. Deletions of that tab are then suspended (a warning says so) and nothing stored is lost.';
