/** Texts of the order-webhook alert e-mails (pt-BR). The decision to send is SQL's. */
import type { Aviso } from './db.js';

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

export function textoParado(a: Aviso, webhookUrl: string): string {
  const d = a.dados as Record<string, unknown>;
  const motivo = d.motivo === 'limite_horas'
    ? `${d.limite_horas} horas sem eventos (rede de segurança fora do horário comercial)`
    : `${d.limite_min_comercial} minutos comerciais sem eventos (seg–sex, 08:00–18:00)`;
  return [
    'O webhook de pedidos da plataforma parou de receber eventos.',
    '',
    `Último evento recebido: ${d.ultimo_evento ? quando(d.ultimo_evento) : 'nenhum desde o início do monitoramento'}`,
    `Silêncio desde: ${quando(d.silencio_desde)}`,
    `Silêncio até o alerta: ${Number(d.minutos_comerciais ?? 0).toFixed(0)} minutos comerciais, ${Number(d.horas ?? 0).toFixed(1)} horas corridas`,
    `Limite atingido: ${motivo}`,
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

export function textoVoltou(a: Aviso): string {
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
