/**
 * The mutants of the SQL mutation runner (`npm run mutacao`, scripts/mutacao/sql-mutantes.ts):
 * for a small function, exactly the expected changes, only in its body's code (not in its
 * header, comments or strings), and each one applied alone.
 */
import { describe, expect, it } from 'vitest';
import { aplicar, limitar, mutantes } from '../../scripts/mutacao/sql-mutantes.js';

const SQL = `CREATE OR REPLACE FUNCTION public.f(p integer DEFAULT 1)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
begin
  -- p < 2 in a comment
  if p > 10 then
    return false;
  end if;
  return exists (select from t where t.a >= p * 2 and t.b between 1 and 2 and t.c is not null)
    or format('%s <> x', p) = 'x';
end;
$function$;

comment on function public.f(integer) is 'a > b';
`;

describe('SQL mutants', () => {
  it('are the expected ones for a small function, in file order', () => {
    expect(mutantes(SQL).map((m) => [m.regra, m.linha, m.original, m.substituto])).toEqual([
      ['condition', 7, 'p > 10', 'true'],
      ['comparison', 7, '>', '>='],
      ['comparison', 7, '>', '<='],
      ['constant', 7, '10', '11'],
      ['constant', 7, '10', '9'],
      ['condition', 10, 't.a >= p * 2', 'true'],
      ['comparison', 10, '>=', '>'],
      ['comparison', 10, '>=', '<'],
      ['arithmetic', 10, '*', '/'],
      ['constant', 10, '2', '3'],
      ['constant', 10, '2', '1'],
      ['condition', 10, ' and t.b between 1 and 2', ''],
      ['logical', 10, 'and', 'or'],
      // the `and` of `between` is neither swapped nor a conjunct
      ['constant', 10, '1', '2'],
      ['constant', 10, '1', '0'],
      ['constant', 10, '2', '3'],
      ['constant', 10, '2', '1'],
      ['condition', 10, ' and t.c is not null', ''],
      ['logical', 10, 'and', 'or'],
      ['negation', 10, 'not ', ''],
      ['logical', 11, 'or', 'and'],
      ['comparison', 11, '=', '<>'],
    ]);
  });

  it('apply one change at a time to the file text', () => {
    const ms = mutantes(SQL);
    expect(ms.map((m) => m.id)).toEqual(ms.map((_, i) => i + 1));
    const semCondicao = aplicar(SQL, ms.find((m) => m.regra === 'condition' && m.original.includes('t.c'))!);
    expect(semCondicao).toContain('where t.a >= p * 2 and t.b between 1 and 2)\n');
    expect(semCondicao.replace('where t.a >= p * 2 and t.b between 1 and 2)', 'where t.a >= p * 2 and t.b between 1 and 2 and t.c is not null)')).toBe(SQL);
    expect(aplicar(SQL, ms[0]!)).toContain('  if true then\n');
  });

  it('change the number of a typed literal, and nothing in a dollar-quoted string', () => {
    const sql = `create function public.g() returns interval language sql as $function$ select interval '20 seconds' + time '08:00' - $q$ 1 < 2 $q$::interval $function$;`;
    expect(mutantes(sql).map((m) => [m.regra, m.original, m.substituto])).toEqual([
      ['constant', '20', '21'], ['constant', '20', '19'],
      ['arithmetic', '+', '-'],
      ['constant', '08', '09'], ['constant', '08', '07'],
      ['arithmetic', '-', '+'],
    ]);
  });

  it('leave alone the assignment of an UPDATE and the values of a simple CASE', () => {
    const sql = `create function public.h(p text) returns void language sql as $function$ update t set a = 1, x.b = 2 where case p when 'A' then c = 3 end $function$;`;
    expect(mutantes(sql).filter((m) => m.regra !== 'constant').map((m) => [m.regra, m.original, m.substituto])).toEqual([
      ['condition', "case p when 'A' then c = 3 end", 'true'],
      ['comparison', '=', '<>'],
    ]);
  });

  it('are bounded evenly over the file', () => {
    const ms = mutantes(SQL);
    expect(limitar(ms, 4).map((m) => m.id)).toEqual([1, 6, 12, 17]);
    expect(limitar(ms, 0)).toHaveLength(ms.length);
  });
});
