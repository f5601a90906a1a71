CREATE OR REPLACE FUNCTION public.gtin_valido(p_codigo text)
 RETURNS boolean
 LANGUAGE plpgsql
 IMMUTABLE PARALLEL SAFE STRICT
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
declare
  d integer[];
begin
  if p_codigo !~ '^([0-9]{8}|[0-9]{12,14})$' then
    return false;
  end if;
  -- as a GTIN-14 (left-padded with zeros) the weights from the left are 3,1,3,…,3
  d := string_to_array(lpad(p_codigo, 14, '0'), null)::integer[];
  return (10 - (3 * (d[1] + d[3] + d[5] + d[7] + d[9] + d[11] + d[13])
                + d[2] + d[4] + d[6] + d[8] + d[10] + d[12]) % 10) % 10 = d[14];
end;
$function$
;

comment on function public.gtin_valido(text) is 'True when p_codigo is a GTIN of 8, 12, 13 or 14 digits (EAN-8, UPC-A, EAN-13, GTIN-14) with a correct check digit (weights 3,1,3,… from the right, mod 10).';
