/**
 * Staff words of the processing screens (/processamentos, batches, refusals, the import
 * result): statuses in plain Portuguese with their colour class, dates dd/mm/aaaa hh:mm in
 * America/Sao_Paulo, durations and sizes in pt-BR, and the execution log retold in staff
 * words. The type names come from SQL (public.xls_tipo_nome); the explanation of a failure
 * too (public.xls_falha_explicar). Templates get these as `it.w`.
 */

const dataHora = new Intl.DateTimeFormat('pt-BR', {
  timeZone: 'America/Sao_Paulo', day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false,
});
const numero = new Intl.NumberFormat('pt-BR');
const decimal1 = new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 1 });

/** A status as staff read it: the words and the colour (an existing .status-* class). */
export interface Situacao { rotulo: string; classe: string }

/**
 * The situation of a processing: SUCESSO with warnings is not a clean SUCESSO; a processing
 * back in the queue after an ERRO says so until it ends.
 */
export function situacao(status: string | null, avisosN = 0, erroAnterior: string | null = null): Situacao {
  switch (status) {
    case 'SUCESSO': return avisosN > 0 ? { rotulo: 'Sucesso com avisos', classe: 'status-AVISO' } : { rotulo: 'Sucesso', classe: 'status-SUCESSO' };
    case 'ERRO': return { rotulo: 'Erro', classe: 'status-ERRO' };
    case 'IGNORADO': return { rotulo: 'Ignorado', classe: 'status-IGNORADO' };
    case 'PROCESSANDO': return erroAnterior ? { rotulo: 'Reenviado — processando', classe: 'status-PROCESSANDO' } : { rotulo: 'Processando', classe: 'status-PROCESSANDO' };
    case 'PENDENTE': return erroAnterior ? { rotulo: 'Reenviado — aguardando', classe: 'status-PENDENTE' } : { rotulo: 'Na fila', classe: 'status-PENDENTE' };
    default: return { rotulo: status ?? '—', classe: 'status-IGNORADO' };
  }
}

/** The status filter's options, in staff words (values stay the codes of the API). */
export const FILTRO_STATUS: ReadonlyArray<{ valor: string; rotulo: string }> = [
  { valor: 'ERRO', rotulo: 'Erro (e reenviados aguardando)' },
  { valor: 'SUCESSO', rotulo: 'Sucesso' },
  { valor: 'PROCESSANDO', rotulo: 'Processando' },
  { valor: 'PENDENTE', rotulo: 'Na fila' },
  { valor: 'IGNORADO', rotulo: 'Ignorado' },
];

/** An entry of a batch: the outcome of its processing, or what happened at arrival. */
export function desfechoEntrada(e: { entrada: string; status: string | null; avisosN: number; aguardaMestre: boolean }): Situacao {
  if (e.entrada === 'DUPLICADO') return { rotulo: 'Já enviado antes', classe: 'status-IGNORADO' };
  if (e.entrada === 'IGNORADO' || !e.status) return { rotulo: 'Ignorado', classe: 'status-IGNORADO' };
  if (e.status === 'ERRO' && e.aguardaMestre) return { rotulo: 'Erro — aguarda o Relatório 18', classe: 'status-ERRO' };
  return situacao(e.status, e.avisosN);
}

/** "8 concluídos, 1 com erro, 1 ignorado": the batch in one line (only the counts that are not zero). */
export function resumoConjunto(itens: Array<{ entrada: string; status: string | null }>): string {
  let concluidos = 0; let erros = 0; let ignorados = 0; let andamento = 0; let duplicados = 0;
  for (const i of itens) {
    if (i.entrada === 'DUPLICADO') duplicados += 1;
    else if (i.entrada === 'IGNORADO' || !i.status || i.status === 'IGNORADO') ignorados += 1;
    else if (i.status === 'SUCESSO') concluidos += 1;
    else if (i.status === 'ERRO') erros += 1;
    else andamento += 1;
  }
  const partes = [
    concluidos ? `${concluidos} ${concluidos === 1 ? 'concluído' : 'concluídos'}` : '',
    erros ? `${erros} com erro` : '',
    ignorados ? `${ignorados} ${ignorados === 1 ? 'ignorado' : 'ignorados'}` : '',
    duplicados ? `${duplicados} já ${duplicados === 1 ? 'enviado' : 'enviados'} antes` : '',
    andamento ? `${andamento} em andamento` : '',
  ].filter(Boolean);
  return partes.length ? partes.join(', ') : 'nenhuma entrada';
}

/** dd/mm/aaaa hh:mm in America/Sao_Paulo; "—" for nothing. */
export function quando(v: unknown): string {
  if (v === null || v === undefined || v === '') return '—';
  const d = new Date(v as string);
  return Number.isNaN(d.getTime()) ? '—' : dataHora.format(d).replace(',', '');
}

/** "2 min 5 s", "1 h 3 min", "12 s". */
export function duracao(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** "47,1 KB", "9,4 MB". */
export function tamanho(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—';
  if (bytes < 1024) return `${numero.format(bytes)} bytes`;
  const u = ['KB', 'MB', 'GB'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < u.length - 1) { v /= 1024; i += 1; }
  return `${decimal1.format(v)} ${u[i]}`;
}

/** A plural count: "1 aviso", "3 avisos". */
export function contar(n: number, um: string, varios: string): string {
  return `${numero.format(n)} ${n === 1 ? um : varios}`;
}

/** The first line of a text, capitalised. */
export function primeiraLinha(v: string | null | undefined): string {
  const l = (v ?? '').split('\n')[0]!.trim();
  return l ? l.charAt(0).toUpperCase() + l.slice(1) : '—';
}

const UUID_G = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const LINHA = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:[.,]\d+)? (.*)$/;

/** One line of the execution log in staff words, or null when it says nothing staff need. */
function linhaAmigavel(texto: string, nomes: ReadonlyMap<string, string>): string | null {
  let t = texto
    .replace(/\s*\[[A-Z0-9]{5}\]\s*$/, '') // SQL codes
    .replace(/\s*\(sha256 [0-9a-f]{64}\)/, '');
  let m: RegExpExecArray | null;
  if ((m = /^início da execução (\d+) por \S+: (.*)$/.exec(t))) return `Início do processamento de ${m[2]}${m[1] !== '1' ? ` (${m[1]}ª tentativa)` : ''}.`;
  if ((m = /^tipo (\S+)$/.exec(t))) return `Tipo de planilha reconhecido: ${nomes.get(`tipo:${m[1]}`) ?? m[1]}.`;
  if (/^tipo não reconhecido/.test(t)) return 'Tipo de planilha não reconhecido: o arquivo foi ignorado.';
  if (/^staging /.test(t)) return null;
  if ((m = /^leitura concluída: (\d+) linhas em \d+ chunks? em (\d+) ms.*?; (\d+) linhas rejeitadas$/.exec(t))) {
    const rej = Number(m[3]);
    return `Leitura concluída: ${numero.format(Number(m[1]))} linhas lidas em ${duracao(Number(m[2]))}${rej ? `, ${contar(rej, 'linha rejeitada', 'linhas rejeitadas')}` : ', nenhuma rejeitada'}.`;
  }
  if ((m = /^rejeitada: (.*)$/.exec(t))) return `Linha rejeitada — ${m[1]}`;
  if ((m = /^merge: (\d+) enviadas, (\d+) gravadas, (\d+) removidas/.exec(t))) {
    return `Gravação: ${numero.format(Number(m[1]))} linhas enviadas, ${numero.format(Number(m[2]))} gravadas, ${numero.format(Number(m[3]))} removidas.`;
  }
  if ((m = /^aviso \[[^\]]*\] (.*)$/.exec(t))) return `Aviso: ${m[1]}`;
  if ((m = /^falha: (.*)$/.exec(t))) return `Falhou: ${nomes.get('falha') ?? m[1]}`;
  if ((m = /^desfecho: (\w+)(?: — (.*?))?(?: \(alarme\))?(; conjunto fechado)?(?:; reprocessando (.*))?$/.exec(t))) {
    const fim = { SUCESSO: 'Concluído com sucesso', ERRO: 'Terminou com erro', IGNORADO: 'Ignorado', PENDENTE: 'Voltou para a fila' }[m[1]!] ?? m[1];
    const extra = [m[3] ? 'o conjunto foi fechado' : '', m[4] ? `refazendo ${m[4].split(/,\s*/).map((id) => nomes.get(id) ?? 'outro arquivo').join(', ')}` : ''].filter(Boolean);
    return `${fim}.${extra.length ? ` Depois disso, ${extra.join('; ')}.` : ''}`;
  }
  t = t.replace(UUID_G, (id) => nomes.get(id.toLowerCase()) ?? 'outro processamento');
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/**
 * The execution log as staff read it: dd/mm/aaaa hh:mm:ss, no worker ids, SQL codes, staging
 * tables, chunks or ids (file names instead: `nomes` maps ids, `tipo:<code>` and `falha`).
 * The raw file stays as it is for GET …/logs.
 */
export function logAmigavel(log: string, nomes: ReadonlyMap<string, string>): Array<{ quando: string; texto: string }> {
  const out: Array<{ quando: string; texto: string }> = [];
  for (const linha of log.split('\n')) {
    if (!linha.trim()) continue;
    const m = LINHA.exec(linha);
    const texto = linhaAmigavel(m ? m[7]! : linha, nomes);
    if (texto === null) continue;
    out.push({ quando: m ? `${m[3]}/${m[2]}/${m[1]} ${m[4]}:${m[5]}:${m[6]}` : '', texto });
  }
  return out;
}

export const palavras = { situacao, desfechoEntrada, resumoConjunto, quando, duracao, tamanho, contar, primeiraLinha };
