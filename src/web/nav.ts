/**
 * Navigation of the staff layout (templates/layout.eta). A new screen adds its entry here;
 * screens under /admin add theirs to ADMIN_LINKS (the /admin panel lists them).
 * See docs/screens.md.
 */
export interface NavItem {
  href: string;
  rotulo: string;
}

export const NAV: NavItem[] = [
  { href: '/processamentos', rotulo: 'Processamentos' },
  { href: '/pedidos', rotulo: 'Pedidos' },
  { href: '/destinatarios', rotulo: 'Destinatários' },
  { href: '/admin', rotulo: 'Administração' },
];

export interface AdminLink extends NavItem {
  descricao: string;
}

export const ADMIN_LINKS: AdminLink[] = [
  { href: '/admin/configuracoes', rotulo: 'Configurações', descricao: 'Chaves de bi_configuracao enviadas aos celulares; as do sistema são somente leitura.' },
  { href: '/admin/replicacao', rotulo: 'Reset da replicação', descricao: 'Mostra se a replicação para os celulares está em dia (motor, slots, atraso) e a refaz quando preciso (slots, docstore, publicação); lista os resets e o que fazer à mão quando um falha.' },
];
