create or replace view public.xls_conjunto_lote as
  select id, arquivo, uploader_id, uploader_nome, total, recebido_em, fechado_em, fechamento_motivo
    from public.xls_conjunto;

comment on view public.xls_conjunto_lote is 'Former name of public.xls_conjunto (the zip batch), a simple view so that callers written before the rename still read and write it; new code uses xls_conjunto.';
