/** Texts of the order-webhook alert e-mails (pt-BR). The decision to send is SQL's. */
import type { Alerta } from './db.js';

export const ASSUNTO_PARADO = 'Webhook parado';
export const ASSUNTO_VOLTOU = 'Webhook voltou a funcionar';

const fmt = new Intl.DateTimeFormat('pt-BR', {
  timeZone: 'America/Sao_Paulo', day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit',
  weekday: 'short',
});

export function quando(v: unknown): string {
  if (v === null || v === undefined || v === '') return '—';
  const d = new Date(v as string);
  return Number.isNaN(d.getTime()) ? String(v) : `${fmt.format(d)} (horário de Brasília)`;
}

export function passosRecadastro(webhookUrl: string): string {
  return [
    'Como recadastrar o webhook (a plataforma desativa o webhook após uma única entrega com falha e não reenvia o que se perdeu):',
    `  1. No painel da plataforma de pedidos, exclua o webhook que aponta para ${webhookUrl}.`,
    `  2. Crie-o de novo com a mesma URL (${webhookUrl}) e, se houver, o mesmo segredo no cabeçalho X-Partner-Secret.`,
    '  3. Envie um evento de teste e confira se o pedido aparece no painel, ou se partner_webhook tem um recebido_em recente:',
    '       select max(recebido_em) from partner_webhook;',
  ].join('\n');
}

const hora = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', hour: '2-digit', minute: '2-digit' });

/** "esperados ~14 pedidos desde 09:10, chegaram 0": what the learned rhythm expected during the silence. */
export function esperadosTexto(d: Record<string, unknown>): string {
  const apr = (d.aprendido ?? {}) as Record<string, unknown>;
  const desde = new Date(String(apr.desde ?? d.silencio_desde ?? ''));
  const esperados = Math.round(Number(apr.esperados ?? 0));
  return `esperados ~${esperados} pedidos desde ${Number.isNaN(desde.getTime()) ? '—' : hora.format(desde)}, chegaram 0`;
}

export function textoParado(a: Alerta, webhookUrl: string): string {
  const d = a.dados as Record<string, unknown>;
  const motivo = d.motivo === 'ritmo_aprendido'
    ? `silêncio improvável pelo ritmo da loja: ${esperadosTexto(d)} (antes dos limites fixos de ${d.limite_min_comercial} minutos comerciais / ${d.limite_horas} horas)`
    : d.motivo === 'limite_horas'
      ? `${d.limite_horas} horas sem eventos (rede de segurança fora do horário comercial)`
      : `${d.limite_min_comercial} minutos comerciais sem eventos (seg–sex, 08:00–18:00)`;
  const apr = (d.aprendido ?? null) as Record<string, unknown> | null;
  return [
    'O webhook de pedidos da plataforma parou de receber eventos.',
    '',
    `Último evento recebido: ${d.ultimo_evento ? quando(d.ultimo_evento) : 'nenhum desde o início do monitoramento'}`,
    `Silêncio desde: ${quando(d.silencio_desde)}`,
    `Silêncio até o alerta: ${Number(d.minutos_comerciais ?? 0).toFixed(0)} minutos comerciais, ${Number(d.horas ?? 0).toFixed(1)} horas corridas`,
    `Limite atingido: ${motivo}`,
    ...(apr?.base === 'fixo' && apr.motivo_fixo === 'historico_insuficiente'
      ? ['Sem histórico suficiente para o ritmo aprendido: valeram os limites fixos.'] : []),
    ...(d.motivo !== 'ritmo_aprendido' && apr?.base === 'aprendido' ? [`Pelo ritmo aprendido: ${esperadosTexto(d)}.`] : []),
    '',
    passosRecadastro(webhookUrl),
    '',
    'Enquanto o webhook não volta, a contingência busca os pedidos pela API REST a cada poucos minutos (quando configurada);',
    'pedidos pagos nesse intervalo ficam em CAPTURADO até alguém apertar Enfileirar. O recadastro continua necessário',
    'para os demais eventos. Acompanhe em GET /api/partner/status.',
    '',
    'Este é o único aviso deste episódio; quando o webhook voltar o episódio se fecha sozinho.',
  ].join('\n');
}

export function textoVoltou(a: Alerta): string {
  const d = a.dados as Record<string, unknown>;
  return [
    'O webhook de pedidos da plataforma voltou a receber eventos.',
    '',
    `Primeiro evento após o silêncio: ${quando(d.retorno_em)}`,
    `Em silêncio desde: ${quando(d.silencio_desde)}`,
    '',
    'Os eventos perdidos no intervalo não são reenviados pela plataforma: o poll REST recupera os pedidos,',
    'e os pagos chegam em CAPTURADO — confira-os no console de pedidos e use Enfileirar.',
  ].join('\n');
}
