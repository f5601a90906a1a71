CREATE OR REPLACE FUNCTION app.erp_sync_item_ler(p_idx integer, p_item jsonb)
 RETURNS app.erp_sync_item
 LANGUAGE plpgsql
 IMMUTABLE PARALLEL SAFE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
declare
  r app.erp_sync_item;
  v_ean jsonb := p_item -> 'ean';
  v_sku text;
begin
  r.idx := p_idx;
  r.erros := '{}';
  if jsonb_typeof(v_ean) = 'null' or (jsonb_typeof(v_ean) = 'string' and btrim(v_ean #>> '{}') = '') then
    v_ean := null;
  end if;
  if jsonb_typeof(p_item -> 'sku') in ('string', 'number') then
    v_sku := nullif(btrim(p_item ->> 'sku'), '');
  end if;

  -- key: the EAN when given (a wrong one is an error, not a fall-back to sku), else the sku
  if v_ean is not null then
    if jsonb_typeof(v_ean) = 'string' and public.gtin_valido(btrim(v_ean #>> '{}')) then
      r.ean := btrim(v_ean #>> '{}');
    else
      r.erros := r.erros || 'ean_invalido'::text;
    end if;
  elsif v_sku is not null then
    r.sku := v_sku;
  else
    r.erros := r.erros || 'sem_ean_nem_sku'::text;
  end if;

  -- both prices are required; stock is optional (absent or null: stock is left as it is)
  r.preco_cheio := app.json_preco(p_item -> 'preco_cheio');
  r.preco_desconto := app.json_preco(p_item -> 'preco_desconto');
  if r.preco_cheio is null or r.preco_desconto is null then
    r.erros := r.erros || 'preco_invalido'::text;
  end if;
  if jsonb_typeof(coalesce(p_item -> 'estoque', 'null')) <> 'null' then
    r.estoque := app.json_estoque(p_item -> 'estoque');
    if r.estoque is null then
      r.erros := r.erros || 'estoque_invalido'::text;
    end if;
  end if;
  return r;
end;
$function$
;

comment on function app.erp_sync_item_ler(integer,jsonb) is 'Reads one item of a POST /sync/erp request: its key (a valid GTIN ean, else sku: a string or number) and values, with the codes sem_ean_nem_sku, ean_invalido, preco_invalido (preco_cheio or preco_desconto missing, not a JSON number, negative, more than 2 decimals, 10^10 or more), estoque_invalido (present and not an integer in 0..2147483647). Duplicates and matching are decided by erp_sync().';
