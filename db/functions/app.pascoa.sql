CREATE OR REPLACE FUNCTION app.pascoa(p_ano integer)
 RETURNS date
 LANGUAGE plpgsql
 IMMUTABLE STRICT
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
declare
  -- anonymous Gregorian algorithm (Meeus/Jones/Butcher)
  a integer := p_ano % 19;
  b integer := p_ano / 100;
  c integer := p_ano % 100;
  d integer := b / 4;
  e integer := b % 4;
  f integer := (b + 8) / 25;
  g integer := (b - f + 1) / 3;
  h integer := (19 * a + b - d - g + 15) % 30;
  i integer := c / 4;
  k integer := c % 4;
  l integer := (32 + 2 * e + 2 * i - h - k) % 7;
  m integer := (a + 11 * h + 22 * l) / 451;
  v_mes integer := (h + l - 7 * m + 114) / 31;
  v_dia integer := ((h + l - 7 * m + 114) % 31) + 1;
begin
  return make_date(p_ano, v_mes, v_dia);
end;
$function$
;

comment on function app.pascoa(integer) is 'Easter Sunday of a Gregorian year (Good Friday, a national holiday, is two days before: public.feriado_nacional).';
